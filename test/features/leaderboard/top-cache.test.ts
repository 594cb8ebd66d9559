import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase, type TestApp } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { board, createBoard, submit } from '../../fixtures/leaderboard.js'
import { createCosmetic } from '../../fixtures/player-profile.js'
import { ChangeLog, TopPageCache, type TopPage } from '../../../features/leaderboard/top-cache.js'
import { inTransaction, nowAndAfterCommit } from '../../../db/transaction.js'
import { submitScore } from '../../../features/leaderboard/service.js'
import { seededIntegers } from '../../helpers/random.js'

const page = (boardId: string, json = '{}', lastPosition = 10): TopPage => ({
  json,
  boardId,
  reset_schedule: 'none',
  period: 'all',
  lastPosition,
})

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

t.test('a change from a position down keeps the pages that end above it', async (t) => {
  const cache = new TopPageCache(60_000)
  cache.set('top10', page('b', 'first ten', 10), cache.begin())
  cache.set('top20', page('b', 'first twenty', 20), cache.begin())
  cache.set('next10', page('b', 'eleven to twenty', 20), cache.begin())
  cache.boardChanged('b', 11)
  t.equal(cache.get('top10')?.page.json, 'first ten', 'a page ending above the change stays')
  t.equal(cache.get('top20'), undefined, 'a page reaching the changed position is dropped')
  t.equal(cache.get('next10'), undefined)
  cache.boardChanged('b', 10)
  t.equal(cache.get('top10'), undefined, 'a change at its last position drops it')

  let readAt = cache.begin()
  cache.boardChanged('b', 50)
  cache.set('top10', page('b', 'read during a change below', 10), readAt)
  t.equal(cache.get('top10')?.page.json, 'read during a change below', 'a read overlapping a change below it is kept')
  readAt = cache.begin()
  cache.boardChanged('b', 50)
  cache.boardChanged('b', 3)
  cache.boardChanged('b', 80)
  cache.set('top10', page('b', 'stale', 10), readAt)
  t.equal(cache.get('top10'), undefined, 'one change among several reaching the page is enough to refuse it')
  readAt = cache.begin()
  cache.boardChanged('b')
  cache.set('top10', page('b', 'stale', 10), readAt)
  t.equal(cache.get('top10'), undefined, 'a change without a position reaches every page')
  readAt = cache.begin()
  cache.boardChanged('other', 1)
  cache.set('top10', page('b', 'kept', 10), readAt)
  t.equal(cache.get('top10')?.page.json, 'kept', "another board's change does not reach it")

  // Two requests for one page share a read unless a change that reaches the page came after it began.
  let reads = 0
  const read = (json: string) => async () => {
    reads++
    return json
  }
  const first = cache.read('k', 10, read('one'))
  t.equal(cache.read('k', 10, read('two')), first, 'shared')
  cache.boardChanged('b', 11)
  t.equal(cache.read('k', 10, read('three')), first, 'still shared after a change below the page')
  cache.boardChanged('b', 4)
  const fresh = cache.read('k', 10, read('four'))
  t.not(fresh, first, 'a change reaching the page starts a read of its own')
  t.equal(await fresh.json, 'four')
  t.equal(reads, 2)
})

t.test('the change log answers like the full list of changes, within its bound', async (t) => {
  const random = seededIntegers(42)
  const log = new ChangeLog()
  const all: Array<[number, number]> = []
  let missed = 0
  let extra = 0
  for (let stamp = 1; stamp <= 3000; stamp++) {
    // Mostly improving positions far down, now and then one at the top or a run of rising ones.
    const from = stamp % 500 < 60 ? stamp % 500 : random(10) === 0 ? 1 + random(5) : 1 + random(1000)
    log.add(stamp, from)
    all.push([stamp, from])
    for (let q = 0; q < 5; q++) {
      const since = Math.max(0, stamp - 1 - random(80))
      const last = 1 + random(200)
      const truth = all.some(([s, f]) => s > since && f <= last)
      const answer = log.changedSince(since, last)
      if (truth && !answer) missed++
      if (!truth && answer) extra++
    }
  }
  t.equal(missed, 0, 'never misses a change that reaches the page')
  t.ok(extra < 3000 * 5 * 0.05, `merging old changes drops a few pages more than needed (${extra} of 15000)`)
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

  t.test('a submit that lands below a cached page leaves it cached; one that reaches it shows at once', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const ctx = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '60000' } })
    await createBoard(ctx, 'long')
    const players = []
    for (let i = 0; i < 8; i++) {
      const player = await createUser(ctx, { username: `p${i}` })
      players.push(player)
      t.equal((await submit(ctx, 'long', player.userId, 100 - i * 10)).statusCode, 200)
    }
    t.same(names(await top(ctx, 'long', '?limit=3')), ['p0', 'p1', 'p2'])
    // Another process renames the leader: this instance hears nothing, so the page read before shows
    // the old name for as long as it is kept. That tells a kept page from one read again.
    await ctx.app.db.updateTable('users').set({ username: 'renamed' }).where('id', '=', players[0]!.userId).execute()
    t.same((await submit(ctx, 'long', players[7]!.userId, 55)).json().position, 6, 'p7 moves up from position 8 to 6')
    t.same(names(await top(ctx, 'long', '?limit=3')), ['p0', 'p1', 'p2'], 'the first three are the kept page')
    t.same(
      names(await top(ctx, 'long', '?limit=3&offset=5')),
      ['p7', 'p5', 'p6'],
      'positions 6 to 8, read now, show the move',
    )
    t.equal((await submit(ctx, 'long', players[6]!.userId, 30)).json().improved, false, 'a submit that changes nothing')
    t.same(names(await top(ctx, 'long', '?limit=3')), ['p0', 'p1', 'p2'])
    t.equal((await submit(ctx, 'long', players[6]!.userId, 85)).json().position, 3, 'p6 moves up to position 3')
    t.same(names(await top(ctx, 'long', '?limit=3')), ['renamed', 'p1', 'p6'], 'the page it reached is read again')

    // A player new to the board changes the total every page shows; a 'latest' board can move one down.
    const newcomer = await createUser(ctx, { username: 'new' })
    t.equal((await submit(ctx, 'long', newcomer.userId, 1)).json().position, 9)
    t.equal((await top(ctx, 'long', '?limit=3')).total, 9, 'a new entry, even the last, changes every page')
    await createBoard(ctx, 'latest', { updateStrategy: 'latest' })
    for (const [i, player] of players.slice(0, 4).entries()) await submit(ctx, 'latest', player.userId, 40 - i * 10)
    t.same(names(await top(ctx, 'latest', '?limit=2')), ['renamed', 'p1'])
    await submit(ctx, 'latest', players[0]!.userId, 5)
    t.same(names(await top(ctx, 'latest', '?limit=2')), ['p1', 'p2'], 'a score that moves an entry down')
  })

  t.test('cached pages of every size agree with the database through 300 random submits', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const cached = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '60000' } })
    const uncached = await buildTestApp(t, dialect, { dbEnv, env: { LEADERBOARD_CACHE_MS: '0' } })
    const boards = ['best-board', 'increment-board', 'latest-board']
    await createBoard(cached, boards[0]!)
    await createBoard(cached, boards[1]!, { updateStrategy: 'increment', sortOrder: 'asc' })
    await createBoard(cached, boards[2]!, { updateStrategy: 'latest' })
    const players = await Promise.all(Array.from({ length: 30 }, (_, i) => createUser(cached, { username: `r${i}` })))
    const pages = ['?limit=1', '?limit=5', '?limit=5&offset=5', '?limit=10&offset=3', '?limit=25']
    const random = seededIntegers(7)
    let disagreements = 0
    for (let i = 0; i < 300; i++) {
      const key = boards[i % 3]!
      const player = players[random(players.length)]!
      // Increments on an ascending board move entries down; 'latest' moves them either way.
      const score = key === 'increment-board' ? 1 + random(10) : random(1000)
      t.equal((await submit(cached, key, player.userId, score)).statusCode, 200)
      if (i % 3 !== 2 && random(2) === 0) continue
      for (const query of pages) {
        const [seen, truth] = [await top(cached, key, query), await top(uncached, key, query)]
        if (JSON.stringify(seen) !== JSON.stringify(truth)) disagreements++
      }
    }
    t.equal(disagreements, 0, 'every cached page read was the page the database holds')
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

  // Server engines only: on SQLite the read would wait for the one connection the open transaction holds.
  if (dialect !== 'sqlite') {
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
