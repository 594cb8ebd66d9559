import t from 'tap'
import { API_KEY, assertError, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { adminApi, startServer, type Server } from '../../helpers/server-process.js'
import { createUser } from '../../fixtures/users.js'
import { BAN_POLL_MS, BannedPlayers } from '../../../platform/security/banned-players.js'

/**
 * The banned players held in memory (contract §1.2, revision 4): a ban or an unban holds at once on the
 * instance that made it and within 1 s on every other; whether a player exists is still the
 * database's answer, so a deleted player's write stores nothing.
 */

async function appPost(server: Server, path: string, body: unknown) {
  const res = await fetch(`${server.base}/api/v1/app${path}`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** Polls `request` every 50 ms until it answers `status`; the time that took, or Infinity after 1 s. */
async function msUntil(request: () => Promise<{ status: number }>, status: number, since: number) {
  for (;;) {
    if ((await request()).status === status) return performance.now() - since
    if (performance.now() - since > 1000) return Infinity
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

eachDialect(t, async (t, dialect) => {
  t.test('two server processes: a ban on one holds there at once and on the other within 1 s', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const [a, b] = await Promise.all([startServer(t, dbEnv, {}), startServer(t, dbEnv, {})])
    const player = await appPost(a!, '/user-management/signup', { type: 'ANONYMOUS', username: 'Banned' })
    const userId = player.body.userId as string
    const load = (server: Server) => () => appPost(server, '/cloud-save/load', { userId })
    t.equal((await load(b!)()).status, 200, 'the player loads on B before the ban')

    const banned = await adminApi(a!.base, 'POST', `/users/${userId}/ban`, { reason: 'cheating' })
    const bannedAt = performance.now()
    t.equal(banned.status, 200)
    const onA = await load(a!)()
    t.equal(onA.status, 403, 'the ban holds at once on the instance that made it')
    t.equal(onA.body.code, 'USER_BANNED')
    const toB = await msUntil(load(b!), 403, bannedAt)
    t.ok(toB < 1000, `the ban reached the other instance in ${Math.round(toB)} ms (under 1 s)`)
    const onB = await load(b!)()
    t.equal(onB.body.code, 'USER_BANNED')
    const log = await appPost(b!, '/user-logs/create', { userId, message: 'm', type: 'INFO' })
    t.equal(log.status, 403, 'every user-scoped route on B refuses the player')

    const unbanned = await adminApi(a!.base, 'POST', `/users/${userId}/unban`)
    const unbannedAt = performance.now()
    t.equal(unbanned.status, 200)
    t.equal((await load(a!)()).status, 200, 'the unban holds at once on the instance that made it')
    const backOnB = await msUntil(load(b!), 200, unbannedAt)
    t.ok(backOnB < 1000, `the unban reached the other instance in ${Math.round(backOnB)} ms (under 1 s)`)

    // The other way round: B bans, A follows.
    await adminApi(b!.base, 'POST', `/users/${userId}/ban`, {})
    const fromB = performance.now()
    t.equal((await load(b!)()).status, 403)
    const toA = await msUntil(load(a!), 403, fromB)
    t.ok(toA < 1000, `a ban made on B reached A in ${Math.round(toA)} ms (under 1 s)`)
  })

  t.test("a deleted player's writes answer 404 USER_NOT_FOUND and store nothing", async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const { app, call, admin } = ctx
    const player = await createUser(ctx)
    const userId = player.userId
    t.equal((await admin({ method: 'DELETE', url: `/users/${userId}` })).statusCode, 200)

    const writes = [
      { url: '/cloud-save/save', payload: { userId, saveData: 'x' } },
      { url: '/cloud-save/save', payload: { userId, saveData: 'x', expectedVersion: 0 } },
      { url: '/cloud-save/save', payload: { userId, saveData: 'x', expectedVersion: 3 } },
      { url: '/user-logs/create', payload: { userId, message: 'm', type: 'INFO' } },
      { url: '/user-feedback/submit', payload: { userId, title: 't', message: 'm' } },
    ]
    for (const write of writes) {
      const res = await call({ method: 'POST', ...write })
      assertError(t, res, 404, 'USER_NOT_FOUND')
    }
    const binary = await call({
      method: 'POST',
      url: `/cloud-save/save?userId=${userId}`,
      headers: { 'content-type': 'application/octet-stream' },
      payload: Buffer.from([1, 2, 3]),
    })
    assertError(t, binary, 404, 'USER_NOT_FOUND')
    const count = async (table: 'cloud_saves' | 'user_logs' | 'user_feedback') =>
      Number(
        (
          await app.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    t.equal(await count('cloud_saves'), 0, 'no save row')
    t.equal(await count('user_logs'), 0, 'no log row')
    t.equal(await count('user_feedback'), 0, 'no feedback row')

    // A load of an unknown player is "no save" (contract §5.4), not 404.
    const load = await call({ method: 'POST', url: '/cloud-save/load', payload: { userId } })
    t.equal(load.statusCode, 200)
    t.equal(load.json().found, false)
  })

  t.test('a banned player who is deleted answers USER_NOT_FOUND, not USER_BANNED', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const player = await createUser(ctx)
    await ctx.admin({ method: 'POST', url: `/users/${player.userId}/ban`, payload: {} })
    const save = { method: 'POST' as const, url: '/cloud-save/save', payload: { userId: player.userId, saveData: 'x' } }
    assertError(t, await ctx.call(save), 403, 'USER_BANNED')
    await ctx.admin({ method: 'DELETE', url: `/users/${player.userId}` })
    t.notOk(
      ctx.app.bannedPlayers.of(ctx.app.games.default).isBanned(player.userId),
      'the deletion took the player out of the set at once',
    )
    assertError(t, await ctx.call(save), 404, 'USER_NOT_FOUND')
  })

  t.test('a ban that rolls back leaves the player unbanned after the next poll', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const player = await createUser(ctx)
    const bans = ctx.app.bannedPlayers.of(ctx.app.games.default)
    await ctx.app.db
      .transaction()
      .execute(async (trx) => {
        await bans.changed(trx, player.userId, true)
        t.ok(bans.isBanned(player.userId), 'held as banned while the write is under way')
        throw new Error('rolled back')
      })
      .catch(() => {})
    await new Promise((resolve) => setTimeout(resolve, 3 * BAN_POLL_MS))
    t.notOk(bans.isBanned(player.userId), 'the next poll read the set again: no ban was committed')
  })

  t.test('a ban committed between the reads of a poll is not lost', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const first = await createUser(ctx)
    const second = await createUser(ctx)
    const third = await createUser(ctx)
    // Another instance's view of the database, whose poll lets a ban commit right after one of its reads.
    let after: { table: string; userId: string } | undefined
    const db = new Proxy(ctx.app.db, {
      get(target, prop) {
        if (prop === 'executeQuery') {
          return async (query: { sql: string }) => {
            const result = await target.executeQuery(query as never)
            const pending = after
            if (pending && query.sql.includes(pending.table)) {
              after = undefined
              await ctx.admin({ method: 'POST', url: `/users/${pending.userId}/ban`, payload: {} })
            }
            return result
          }
        }
        const value = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const bans = new BannedPlayers(db, { warn: () => {}, info: () => {} }, 20)
    t.teardown(() => bans.stop())
    await bans.start()
    t.ok(bans.ready)
    const held = async (userId: string) => {
      const since = performance.now()
      while (!bans.isBanned(userId) && performance.now() - since < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      return bans.isBanned(userId)
    }
    // Between the counter and the ids: the ids have the ban already.
    after = { table: 'content_versions', userId: first.userId }
    t.ok(await held(first.userId), 'a ban committed after the counter was read')
    // After the ids (read again for a third ban): the counter read next has moved, so they are read again.
    after = { table: 'users', userId: second.userId }
    await ctx.admin({ method: 'POST', url: `/users/${third.userId}/ban`, payload: {} })
    t.ok(await held(third.userId), 'the third ban')
    t.ok(await held(second.userId), 'a ban committed after the ids were read')
    t.equal(after, undefined, 'both bans were made mid-poll')
  })

  t.test("a game's set rests without lookups, polls nothing, and wakes with a fresh read", async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const player = await createUser(ctx)
    // Another instance's set over the same database: the bans below are made by "this" instance.
    let counterReads = 0
    const db = new Proxy(ctx.app.db, {
      get(target, prop) {
        if (prop === 'executeQuery')
          return (query: { sql: string }) => {
            if (query.sql.includes('content_versions')) counterReads++
            return target.executeQuery(query as never)
          }
        const value = Reflect.get(target, prop, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const bans = new BannedPlayers(db, { warn: () => {}, info: () => {} }, 20, 200)
    t.teardown(() => bans.stop())
    t.equal(bans.lookup(player.userId), undefined, 'the first lookup: not loaded, the caller reads the database')
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(bans.lookup(player.userId), false, 'loaded by the poll the lookup started')
    await new Promise((resolve) => setTimeout(resolve, 400))
    const resting = counterReads
    await new Promise((resolve) => setTimeout(resolve, 200))
    t.equal(counterReads, resting, 'no poll while resting (10 would have run)')
    t.notOk(bans.ready, 'a resting set answers nothing')
    await ctx.admin({ method: 'POST', url: `/users/${player.userId}/ban`, payload: {} })
    t.equal(bans.lookup(player.userId), undefined, 'the lookup that wakes it reads the database')
    await new Promise((resolve) => setTimeout(resolve, 100))
    t.equal(bans.lookup(player.userId), true, 'the ban made while it rested is in the set it read again')
  })
})
