import t from 'tap'
import { FEATURES } from '../../app.js'
import { buildTestApp, eachDialect, type TestApp } from '../helpers/app.js'
import { bearer, createUser, type SignedUpUser } from '../fixtures/users.js'
import { board, createBoard, submit } from '../fixtures/leaderboard.js'
import { EventHub } from '../../platform/core/events.js'
import { deleteUser } from '../../features/users/service.js'

const top = async (ctx: TestApp, key: string) => {
  const response = await ctx.call({ method: 'GET', url: `${board(key)}/top` })
  if (response.statusCode !== 200) throw new Error(`top failed: ${response.statusCode} ${response.body}`)
  return response.json() as { total: number; entries: Array<{ username: string; position: number }> }
}
const names = (page: { entries: Array<{ username: string }> }) => page.entries.map((e) => e.username)
const rank = async (ctx: TestApp, key: string, user: SignedUpUser) =>
  (await ctx.call({ method: 'GET', url: `${board(key)}/rank?userId=${user.userId}` })).json() as {
    position: number
    total: number
  }
const rename = async (ctx: TestApp, user: SignedUpUser, newName: string) => {
  const response = await ctx.call({
    method: 'POST',
    url: '/user-management/change-name',
    headers: bearer(user),
    payload: { userId: user.userId, newName },
  })
  if (response.statusCode !== 200) throw new Error(`rename failed: ${response.statusCode} ${response.body}`)
}

eachDialect(t, async (t, dialect) => {
  t.test('two apps in one process over two databases share no feature state', async (t) => {
    const a = await buildTestApp(t, dialect, { env: { LEADERBOARD_CACHE_MS: '60000' } })
    const b = await buildTestApp(t, dialect, { env: { LEADERBOARD_CACHE_MS: '60000' } })
    t.not(a.app.events, b.app.events, 'each app has its own hub')
    const heard = { a: [] as string[], b: [] as string[] }
    for (const [name, ctx] of [
      ['a', a],
      ['b', b],
    ] as const) {
      ctx.app.events.on('publicPlayerChanged', () => heard[name].push('player'))
      ctx.app.events.on('boardChanged', () => heard[name].push('board'))
    }

    // B keeps its top page; then another process renames B's player straight in B's database, which B
    // hears nothing of: B's copy stays as it was until something on B itself drops it.
    const bob = await createUser(b, { username: 'Bob' })
    t.equal((await submit(b, 'default', bob.userId, 10)).statusCode, 200)
    t.same(names(await top(b, 'default')), ['Bob'])
    await b.app.db.updateTable('users').set({ username: 'Robert' }).where('id', '=', bob.userId).execute()
    heard.a.length = 0
    heard.b.length = 0

    const alice = await createUser(a, { username: 'Alice' })
    t.equal((await submit(a, 'default', alice.userId, 5)).statusCode, 200)
    await rename(a, alice, 'Alicia')
    t.same(names(await top(a, 'default')), ['Alicia'], "A's writes show on A")
    t.same(names(await top(b, 'default')), ['Bob'], "A's score and rename left B's cached page alone")
    t.ok(heard.a.includes('player') && heard.a.includes('board'), "A's hub heard A's writes")
    t.same(heard.b, [], "B's hub heard none of them")

    heard.a.length = 0
    await rename(b, bob, 'Bobby')
    t.same(names(await top(b, 'default')), ['Bobby'], "B's own rename drops B's page")
    t.same(heard.a, [], "B's events do not reach A")
    t.same(names(await top(a, 'default')), ['Alicia'])

    // The content caches: a value written through A is A's alone.
    const put = await a.admin({ method: 'PUT', url: '/remote-config/motd', payload: { value: 'from A' } })
    t.equal(put.statusCode, 200)
    t.equal((await a.call({ method: 'GET', url: '/remote-config/motd' })).json().configValue, 'from A')
    t.same((await b.call({ method: 'GET', url: '/remote-config/motd' })).json(), {
      configKey: 'motd',
      configValue: null,
      found: false,
    })
    t.same(
      (await b.call({ method: 'GET', url: '/remote-config/all' })).json().configs,
      {},
      "B's copy holds none of A's values",
    )
  })

  t.test('a delete and a rename reach the leaderboard through the hub the plugin subscribed to', async (t) => {
    const ctx = await buildTestApp(t, dialect, { env: { LEADERBOARD_CACHE_MS: '60000' } })
    await createBoard(ctx, 'hub')
    const players: SignedUpUser[] = []
    for (const [i, score] of [40, 30, 20, 10].entries()) {
      const player = await createUser(ctx, { username: `P${i + 1}` })
      t.equal((await submit(ctx, 'hub', player.userId, score)).statusCode, 200)
      players.push(player)
    }
    const [p1, p2, p3, p4] = players
    t.same(names(await top(ctx, 'hub')), ['P1', 'P2', 'P3', 'P4'])

    await rename(ctx, p2, 'Renamed')
    t.same(names(await top(ctx, 'hub')), ['P1', 'Renamed', 'P3', 'P4'], 'a rename shows on the cached page at once')

    t.equal((await ctx.admin({ method: 'DELETE', url: `/users/${p1.userId}` })).statusCode, 200)
    const page = await top(ctx, 'hub')
    t.same(
      [names(page), page.entries.map((e) => e.position), page.total],
      [['Renamed', 'P3', 'P4'], [1, 2, 3], 3],
      'the deleted player left the page',
    )
    t.match(await rank(ctx, 'hub', p4), { position: 3, total: 3 }, 'the count tree lost the entry: ranks exact')
    t.match(await rank(ctx, 'hub', p2), { position: 1, total: 3 })

    // The leaderboard's reaction is its plugin's subscription on this app's hub, not an import: the
    // leaderboard's modules are loaded all the same, but a delete announced on a hub nobody
    // subscribed to leaves the count tree behind (the entry is gone, its count is not).
    await deleteUser(ctx.app.db, new EventHub(), ctx.app.bannedPlayers.of(ctx.app.games.default), p3.userId)
    t.match(await rank(ctx, 'hub', p4), { position: 3, total: 3 }, 'without the subscription the counts are stale')
  })
})

t.test('app.ts registers the shared plugins and every feature of the one list, one plugin each', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const { app } = ctx
  const features = FEATURES.map((feature) => feature.manifest.name).sort()
  t.same(app.features.map((manifest) => manifest.name).sort(), features, 'app.features holds the manifests of the list')
  for (const name of features) t.ok(app.hasPlugin(name), `feature plugin '${name}'`)
  const core = [
    'config',
    'features',
    'cluster',
    'logging',
    'surfaces',
    'clock',
    'events',
    'errors',
    'metrics',
    'db',
    // Every request's game (platform/games/), decided before the gates; `games` is the feature of the
    // games' admin API (features/games/).
    'game-registry',
    'http',
    'rate-limit',
    'api-key',
    'admin-auth',
    'sessions',
    'openapi',
    'health',
    'console',
    // Not core (which features never reach into) nor a feature: the background jobs' runner.
    'jobs',
  ]
  for (const name of core) t.ok(app.hasPlugin(name), `core plugin '${name}'`)

  const registered = (app as unknown as Record<symbol, string[]>)[Symbol.for('registered-plugin')]
  t.same(registered.filter((name) => features.includes(name)).sort(), features, 'each feature registered once')
  const known = (name: string) =>
    core.includes(name) || features.includes(name) || name === 'email-worker' || name.startsWith('@fastify/')
  t.same(
    registered.filter((name) => !known(name)),
    [],
    'nothing else at the top level',
  )

  // What a feature's route files add stays inside them; what the feature plugin decorates is shared.
  t.notOk(app.hasContentTypeParser('application/octet-stream'), "cloud-save's body parser is its routes' own")
  t.type(app.emailWorker.runOnce, 'function', "the e-mail worker is the e-mail feature's decoration")
})
