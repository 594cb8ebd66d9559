import { setTimeout as sleep } from 'node:timers/promises'
import { createConnection, type Connection } from 'mysql2/promise'
import t, { type Test } from 'tap'
import { buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { bearer, createUser, type SignedUpUser } from '../../fixtures/users.js'
import { createCosmetic } from '../../fixtures/player-profile.js'

/**
 * Parallel profile writes of one player answer 200, never 500, on MySQL too, also when they start
 * while another connection holds the profile row's lock (or the gap where it will be), which is
 * what a loaded machine does to them by chance: many writers queue on the row at once.
 */
const PARALLEL = 50
const AVATARS = ['cat', 'dog', 'fox']
const BADGES = ['b1', 'b2', 'b3', 'b4']

/** The body of PUT number `i`: every field says `i`, so a stored mix of two PUTs shows. */
function body(user: SignedUpUser, i: number) {
  return {
    userId: user.userId,
    avatarId: AVATARS[i % AVATARS.length],
    badges: [BADGES[i % BADGES.length], BADGES[(i + 1) % BADGES.length]],
    displayName: `Racer ${i}`,
    customData: { i },
  }
}

async function parallelPuts(ctx: TestApp, user: SignedUpUser) {
  return Promise.all(
    Array.from({ length: PARALLEL }, (_, i) =>
      ctx.call({ method: 'PUT', url: '/player-profile', headers: bearer(user), payload: body(user, i) }),
    ),
  )
}

async function checkOutcome(
  t: Test,
  ctx: TestApp,
  user: SignedUpUser,
  responses: Awaited<ReturnType<typeof parallelPuts>>,
) {
  const statuses = new Map<number, number>()
  for (const r of responses) statuses.set(r.statusCode, (statuses.get(r.statusCode) ?? 0) + 1)
  t.same(Object.fromEntries(statuses), { 200: PARALLEL }, `all ${PARALLEL} answered 200`)
  const doc = (
    await ctx.call({ method: 'GET', url: `/player-profile?userId=${user.userId}`, headers: bearer(user) })
  ).json()
  const i = doc.customData?.i as number
  t.ok(Number.isInteger(i) && i >= 0 && i < PARALLEL, `the stored profile is one that was sent (${i})`)
  const sent = body(user, i)
  t.same(
    { avatarId: doc.profile.avatarId, badges: doc.profile.badges, displayName: doc.displayName },
    { avatarId: sent.avatarId, badges: sent.badges, displayName: sent.displayName },
    'all of it from that one PUT',
  )
}

function mysqlConnection(ctx: TestApp): Promise<Connection> {
  return createConnection({
    host: ctx.env.DB_HOST,
    port: Number(ctx.env.DB_PORT),
    user: ctx.env.DB_USER,
    password: ctx.env.DB_PASS,
    database: ctx.env.DB_NAME,
  })
}

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  for (const id of AVATARS) await createCosmetic(ctx, id, 'avatar')
  for (const id of BADGES) await createCosmetic(ctx, id, 'badge')

  t.test(`${PARALLEL} parallel PUTs for a player without a profile row yet`, async (t) => {
    const user = await createUser(ctx)
    await checkOutcome(t, ctx, user, await parallelPuts(ctx, user))
  })

  t.test(`${PARALLEL} parallel PUTs for a player with a profile row`, async (t) => {
    const user = await createUser(ctx)
    await checkOutcome(t, ctx, user, await parallelPuts(ctx, user))
    await checkOutcome(t, ctx, user, await parallelPuts(ctx, user))
  })

  if (dialect !== 'mysql') return

  // The other connection holds the lock for a moment while every PUT starts, then lets go: they all
  // queue on the row at once, as they do by chance on a machine under other load.
  for (const existing of [false, true]) {
    t.test(
      `MySQL: ${PARALLEL} parallel PUTs that start while another connection holds the ${existing ? 'row' : 'gap of the missing row'}`,
      async (t) => {
        const user = await createUser(ctx)
        if (existing) {
          t.equal(
            (await ctx.call({ method: 'PUT', url: '/player-profile', headers: bearer(user), payload: body(user, 0) }))
              .statusCode,
            200,
          )
        }
        const holder = await mysqlConnection(ctx)
        t.teardown(() => holder.end())
        await holder.query('start transaction')
        await holder.query('select user_id from player_profiles where user_id = ? for update', [user.userId])
        const puts = parallelPuts(ctx, user)
        await sleep(300)
        await holder.query('commit')
        await checkOutcome(t, ctx, user, await puts)
      },
    )
  }
})
