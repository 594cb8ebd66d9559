import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase, type TestApp } from './helpers/app.js'
import { bearer, createUser } from './fixtures/users.js'
import { board, createBoard, submit } from './fixtures/leaderboard.js'
import { createCosmetic } from './fixtures/player-profile.js'
import { TopPageCache, type TopPage } from '../plugins/leaderboard/top-cache.js'
import { inTransaction, nowAndAfterCommit } from '../db/transaction.js'
import { submitScore } from '../plugins/leaderboard/service.js'

const page = (boardId: string, json = '{}'): TopPage => ({ json, boardId, reset_schedule: 'none', period: 'all' })

t.test('the page cache: change marks, reads that overlap a change, expiry and its size bound', async (t) => {
  const cache = new TopPageCache(60_000, 3)
  cache.set('a', page('board-a', 'A'), cache.begin())
  cache.set('b', page('board-b', 'B'), cache.begin())
  t.equal(cache.get('a')?.page.json, 'A')

  cache.boardChanged('board-a')
  t.equal(cache.get('a'), undefined, 'a change to its board drops the page')
  t.equal(cache.get('b')?.page.json, 'B', 'pages of other boards stay')

  const readAt = cache.begin()
  cache.boardChanged('board-a')
  cache.set('a', page('board-a', 'stale'), readAt)
  t.equal(cache.get('a'), undefined, 'a page read while its board changed is not kept')

  cache.everythingChanged()
  t.equal(cache.get('b'), undefined, 'a name or profile change drops every page')

  for (const key of ['1', '2', '3']) cache.set(key, page('board-c'), cache.begin())
  t.ok(cache.get('1'), 'the oldest page was read again: it is now the most recent')
  cache.set('4', page('board-c'), cache.begin())
  t.equal(cache.size, 3, 'never more pages than the bound')
  t.equal(cache.get('2'), undefined, 'the least recently used page made room')
  t.ok(cache.get('1') && cache.get('3') && cache.get('4'))

  const short = new TopPageCache(30)
  short.set('x', page('board-d'), short.begin())
  t.equal(short.get('x')?.stale, false)
  await sleep(40)
  t.equal(short.get('x')?.stale, true, 'after the configured time a page is read again, and kept only as the last copy')

  const off = new TopPageCache(0)
  off.set('x', page('board-d'), off.begin())
  t.equal(off.size, 0, 'LEADERBOARD_CACHE_MS=0 keeps nothing')
})

const top = async (ctx: TestApp, key: string, query = '') => {
  const response = await ctx.call({ method: 'GET', url: `${board(key)}/top${query}` })
  t.equal(response.statusCode, 200)
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8/)
  return response.json()
}
const names = (body: { entries: Array<{ username: string }> }) => body.entries.map((e) => e.username)

eachDialect(t, async (t, dialect) => {
  t.test('steps after commit run once the transaction commits, and never for a rolled-back one', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const runs: string[] = []
    await inTransaction(ctx.app.db, async (trx) => {
      nowAndAfterCommit(trx, () => runs.push('committed'))
      t.same(runs, ['committed'], 'run once at once')
    })
    t.same(runs, ['committed', 'committed'], 'and once after the commit')
    runs.length = 0
    await t.rejects(
      inTransaction(ctx.app.db, async (trx) => {
        nowAndAfterCommit(trx, () => runs.push('rolled back'))
        throw new Error('abort')
      }),
    )
    t.same(runs, ['rolled back'], 'a rolled-back transaction runs no commit step')
    runs.length = 0
    nowAndAfterCommit(ctx.app.db, () => runs.push('no transaction'))
    t.same(runs, ['no transaction'], 'outside a transaction it runs once')
  })

  t.test('a write through this instance shows on its next top read', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createBoard(ctx, 'menu')
    const alice = await createUser(ctx, { username: 'Alice' })
    const bob = await createUser(ctx, { username: 'Bob' })
    await submit(ctx, 'menu', alice.userId, 10)
    t.same(names(await top(ctx, 'menu')), ['Alice'])

    await submit(ctx, 'menu', bob.userId, 20)
    let body = await top(ctx, 'menu')
    t.same(names(body), ['Bob', 'Alice'], 'a new score')
    t.equal(body.total, 2)
    await submit(ctx, 'menu', alice.userId, 30)
    t.same(names(await top(ctx, 'menu')), ['Alice', 'Bob'], 'a better score')

    await ctx.call({
      method: 'POST',
      url: '/user-management/change-name',
      headers: bearer(bob),
      payload: { userId: bob.userId, newName: 'Robert' },
    })
    t.same(names(await top(ctx, 'menu')), ['Alice', 'Robert'], 'a rename')
    await createCosmetic(ctx, 'cache-frame', 'frame')
    await ctx.call({
      method: 'PUT',
      url: '/player-profile',
      headers: bearer(alice),
      payload: { userId: alice.userId, frameId: 'cache-frame' },
    })
    t.equal((await top(ctx, 'menu')).entries[0].profile.frameId, 'cache-frame', 'a profile change')
    await ctx.admin({ method: 'DELETE', url: '/cosmetics/cache-frame' })
    t.equal((await top(ctx, 'menu')).entries[0].profile.frameId, null, 'a cosmetic taken off by the operator')

    t.equal(
      (await ctx.admin({ method: 'PUT', url: `/leaderboards/menu/bans/${bob.userId}`, payload: {} })).statusCode,
      200,
    )
    t.same(names(await top(ctx, 'menu')), ['Alice'], 'a ban hides the entry')
    await ctx.admin({ method: 'DELETE', url: `/leaderboards/menu/bans/${bob.userId}` })
    t.same(names(await top(ctx, 'menu')), ['Alice', 'Robert'], 'an unban shows it again')
    await ctx.admin({ method: 'DELETE', url: `/leaderboards/menu/entries/${bob.userId}` })
    t.same(names(await top(ctx, 'menu')), ['Alice'], 'an entry removed')
    await ctx.admin({ method: 'DELETE', url: `/users/${alice.userId}` })
    body = await top(ctx, 'menu')
    t.same([names(body), body.total], [[], 0], 'a deleted player')

    await submit(ctx, 'menu', bob.userId, 5)
    t.equal((await top(ctx, 'menu')).total, 1)
    await ctx.admin({ method: 'POST', url: '/leaderboards/menu/reset' })
    t.equal((await top(ctx, 'menu')).total, 0, 'a reset')
    await ctx.admin({ method: 'PUT', url: board('menu'), payload: { isActive: false } })
    t.equal((await ctx.call({ method: 'GET', url: `${board('menu')}/top` })).statusCode, 404, 'a deactivated board')
    await ctx.admin({ method: 'PUT', url: board('menu'), payload: { isActive: true } })
    await top(ctx, 'menu')
    await ctx.admin({ method: 'DELETE', url: board('menu') })
    t.equal((await ctx.call({ method: 'GET', url: `${board('menu')}/top` })).statusCode, 404, 'a deleted board')
  })

  t.test('a cached page is never served for another period', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createBoard(ctx, 'daily', { resetSchedule: 'daily' })
    const user = await createUser(ctx, { username: 'Today' })
    await submit(ctx, 'daily', user.userId, 7)
    t.equal((await top(ctx, 'daily')).total, 1)
    t.equal((await top(ctx, 'daily', '?period=previous')).total, 0)
    ctx.clock.advance(24 * 3600 * 1000)
    t.equal((await top(ctx, 'daily')).total, 0, 'the new day starts empty')
    t.equal((await top(ctx, 'daily', '?period=previous')).total, 1, 'and yesterday is the previous period')
  })

  t.test('a write through another instance shows within LEADERBOARD_CACHE_MS', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const slow = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '60000' } })
    const quick = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '200' } })
    const uncached = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '0' } })
    const user = await createUser(slow, { username: 'Far' })
    await submit(slow, 'default', user.userId, 1)
    for (const instance of [slow, quick, uncached]) t.equal((await top(instance, 'default')).entries[0].score, 1)
    // Another process's write: straight to the database, so this process hears nothing of it.
    await slow.app.db
      .updateTable('leaderboard_entries')
      .set({ score: 2, rank_score: -2 })
      .where('user_id', '=', user.userId)
      .execute()
    t.equal((await top(slow, 'default')).entries[0].score, 1, 'an instance serves its copy until it expires')
    t.equal((await top(uncached, 'default')).entries[0].score, 2, 'an instance without the cache reads the database')
    await sleep(250)
    t.equal((await top(quick, 'default')).entries[0].score, 2, 'after LEADERBOARD_CACHE_MS the change shows')
  })

  // MySQL only: on SQLite the read would wait for the one connection the open transaction holds.
  if (dialect === 'mysql') {
    t.test('a page read while a write is still uncommitted is not served after the commit', async (t) => {
      const ctx = await buildTestApp(t, dialect)
      const user = await createUser(ctx, { username: 'Slow' })
      await submit(ctx, 'default', user.userId, 10)
      await inTransaction(ctx.app.db, async (trx) => {
        await submitScore(trx, ctx.app.events, {
          boardKey: 'default',
          userId: user.userId,
          score: 50,
          validated: false,
          now: ctx.clock.now(),
        })
        t.equal((await top(ctx, 'default')).entries[0].score, 10, 'another connection still reads the committed score')
      })
      t.equal((await top(ctx, 'default')).entries[0].score, 50, 'after the commit the new one')
    })
  }

  t.test('top reads racing 60 submits end on the final order', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createBoard(ctx, 'race')
    const users = await Promise.all(Array.from({ length: 12 }, (_, i) => createUser(ctx, { username: `racer-${i}` })))
    const best = new Map<string, number>()
    const work: Array<Promise<unknown>> = []
    for (let round = 0; round < 5; round++) {
      for (const [i, user] of users.entries()) {
        const score = ((round * 7 + i * 13) % 29) * 10 + i
        best.set(user.userId, Math.max(best.get(user.userId) ?? 0, score))
        work.push(submit(ctx, 'race', user.userId, score))
        work.push(ctx.call({ method: 'GET', url: `${board('race')}/top?limit=5` }))
      }
    }
    const responses = (await Promise.all(work)) as Array<{ statusCode: number }>
    t.ok(
      responses.every((r) => r.statusCode === 200),
      'every request answered 200',
    )
    const expected = [...best.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5)
      .map(([userId]) => userId)
    const final = await top(ctx, 'race', '?limit=5')
    t.same(
      final.entries.map((e: { userId: string }) => e.userId),
      expected,
      'the cached page is the final top 5',
    )
    t.equal(final.total, 12)
  })
})
