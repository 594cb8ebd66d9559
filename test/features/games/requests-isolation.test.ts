import tap from 'tap'
import { ADMIN, ADMIN_KEY, assertError, buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { BYSTANDER, BYSTANDER_NEWS, BYSTANDER_PLAYER, BYSTANDER_SCORE, bystanderOn } from '../../helpers/bystander.js'
import { addGame } from '../../helpers/second-game.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { createNews } from '../../fixtures/content.js'

// Contract §14: a request acts on its own game's database and in-memory copies. A second game is made
// beside `default` (its row and key, then its database), and every check goes through real requests:
// with `default`'s key (API_KEY) and un-prefixed admin routes, and with the new game's key and its
// admin prefix.

const SIGNUP = '/user-management/signup'
const SIGNIN = '/user-management/signin'

eachDialect(tap, async (t, dialect) => {
  const alpha = await buildTestApp(t, dialect)
  // The second game, `beta`: its key for the app API, its prefix for the admin API.
  const added = await addGame(alpha, 'beta', { name: 'Beta' })
  const beta: TestApp = { ...alpha, call: added.call, admin: added.admin }

  t.test('the same e-mail address signs up in both games, once in each', async (t) => {
    const account = { type: 'EMAIL', email: 'ada@example.com', password: 'correct horse' }
    const inAlpha = await alpha.call({ method: 'POST', url: SIGNUP, payload: account })
    const inBeta = await beta.call({ method: 'POST', url: SIGNUP, payload: account })
    t.equal(inAlpha.statusCode, 201)
    t.equal(inBeta.statusCode, 201, 'the address is free in the other game')
    t.not(inAlpha.json().userId, inBeta.json().userId, 'two accounts')
    assertError(t, await beta.call({ method: 'POST', url: SIGNUP, payload: account }), 409, 'USER_ALREADY_EXISTS')
    const signIn = { type: 'EMAIL', email: 'ada@example.com', password: 'correct horse' }
    t.equal((await beta.call({ method: 'POST', url: SIGNIN, payload: signIn })).json().userId, inBeta.json().userId)
    t.equal((await alpha.call({ method: 'POST', url: SIGNIN, payload: signIn })).json().userId, inAlpha.json().userId)
  })

  t.test(
    "a player, session, anonymous token and refresh token of one game are refused by the other's key",
    async (t) => {
      const player = await createUser(alpha, { includeRefreshToken: true })
      const probe = { method: 'POST' as const, url: '/__test/user-scoped', payload: { userId: player.userId } }
      t.equal((await alpha.call({ ...probe, headers: bearer(player) })).statusCode, 200, 'in its own game: the session')
      t.equal((await alpha.call(probe)).statusCode, 200, 'in its own game: the player (compat mode)')
      assertError(t, await beta.call({ ...probe, headers: bearer(player) }), 401, 'SESSION_REQUIRED')
      assertError(t, await beta.call(probe), 404, 'USER_NOT_FOUND')
      const save = {
        method: 'POST' as const,
        url: '/cloud-save/save',
        payload: { userId: player.userId, saveData: 'x' },
      }
      assertError(t, await beta.call(save), 404, 'USER_NOT_FOUND')
      const check = { method: 'POST' as const, url: '/user-management/check-auth' }
      const payload = { userId: player.userId, sessionToken: player.accessToken }
      t.equal((await alpha.call({ ...check, payload })).json().authStatus, 'AUTHENTICATED')
      t.not(
        (await beta.call({ ...check, payload })).json().authStatus,
        'AUTHENTICATED',
        'check-auth: not in the other game',
      )
      const anonymous = { type: 'ANONYMOUS', anonymousToken: player.anonymousToken }
      assertError(t, await beta.call({ method: 'POST', url: SIGNIN, payload: anonymous }), 404, 'USER_NOT_FOUND')
      const refresh = { refreshToken: player.refreshToken }
      assertError(t, await beta.call({ method: 'POST', url: SIGNIN, payload: refresh }), 401, 'SESSION_REQUIRED')
      assertError(
        t,
        await beta.call({ method: 'POST', url: '/user-management/signout', headers: bearer(player) }),
        401,
        'SESSION_REQUIRED',
      )
      // None of it spent or ended anything in its own game.
      t.equal(
        (await alpha.call({ method: 'POST', url: SIGNIN, payload: refresh })).statusCode,
        200,
        'the refresh token',
      )
      t.equal((await alpha.call({ method: 'POST', url: SIGNIN, payload: anonymous })).json().userId, player.userId)
    },
  )

  t.test("a ban is its game's: the banned set is kept per game", async (t) => {
    const [a, b] = [await createUser(alpha), await createUser(beta)]
    assertError(
      t,
      await alpha.admin({ method: 'POST', url: `/users/${b.userId}/ban`, payload: {} }),
      404,
      'USER_NOT_FOUND',
    )
    t.equal((await beta.admin({ method: 'POST', url: `/users/${b.userId}/ban`, payload: {} })).statusCode, 200)
    const save = (userId: string) => ({
      method: 'POST' as const,
      url: '/cloud-save/save',
      payload: { userId, saveData: 'x' },
    })
    assertError(t, await beta.call(save(b.userId)), 403, 'USER_BANNED')
    t.equal((await alpha.call(save(a.userId))).statusCode, 200, "the other game's players play on")
    t.ok(beta.app.bannedPlayers.of(beta.app.games.get('beta')!).isBanned(b.userId), "in beta's set")
    t.notOk(alpha.app.bannedPlayers.of(alpha.app.games.default).isBanned(b.userId), "not in default's")
  })

  t.test('remote config under a game prefix is that game’s; the un-prefixed route is default’s', async (t) => {
    t.equal(
      (await beta.admin({ method: 'PUT', url: '/remote-config/speed', payload: { value: 'beta' } })).statusCode,
      200,
    )
    const get = (app: TestApp) => app.call({ method: 'GET', url: '/remote-config/speed' })
    t.match((await get(beta)).json(), { configValue: 'beta', found: true })
    t.match((await get(alpha)).json(), { configValue: null, found: false }, 'default does not see it')
    t.equal(
      (await alpha.admin({ method: 'PUT', url: '/remote-config/speed', payload: { value: 'default' } })).statusCode,
      200,
    )
    // Both copies are fresh now: each game answers its own within the cache's interval.
    t.equal((await get(alpha)).json().configValue, 'default')
    t.equal((await get(beta)).json().configValue, 'beta', "beta's copy is its own")
    t.same(
      (await beta.admin({ method: 'GET', url: '/remote-config' }))
        .json()
        .items.map((i: { configValue: string }) => i.configValue),
      ['beta'],
    )
    t.same(
      (await alpha.admin({ method: 'GET', url: '/remote-config' }))
        .json()
        .items.map((i: { configValue: string }) => i.configValue),
      ['default'],
    )
  })

  t.test('news and localization under a game prefix are that game’s', async (t) => {
    await createNews(beta, { title: 'Beta news' })
    t.same((await alpha.call({ method: 'GET', url: '/news' })).json(), [], 'default has no news')
    t.same(
      (await beta.call({ method: 'GET', url: '/news' })).json().map((n: { title: string }) => n.title),
      ['Beta news'],
    )
    await createNews(alpha, { title: 'Default news' })
    t.same(
      (await alpha.call({ method: 'GET', url: '/news' })).json().map((n: { title: string }) => n.title),
      ['Default news'],
    )
    t.same(
      (await beta.call({ method: 'GET', url: '/news' })).json().map((n: { title: string }) => n.title),
      ['Beta news'],
      "beta's cached copy is not default's",
    )

    const put = (app: TestApp, value: string) =>
      app.admin({ method: 'PUT', url: '/localization/en/menu.start', payload: { value } })
    t.equal((await put(beta, 'Go')).statusCode, 200)
    const all = (app: TestApp) => app.call({ method: 'GET', url: '/localization/all?lang=en' })
    t.same((await all(beta)).json().translations, { 'menu.start': 'Go' })
    t.same((await all(alpha)).json().translations, {}, 'default has none')
    t.equal((await put(alpha, 'Start')).statusCode, 200)
    t.same((await all(alpha)).json().translations, { 'menu.start': 'Start' })
    t.same((await all(beta)).json().translations, { 'menu.start': 'Go' }, "beta's copy is its own")
  })

  t.test('boards and their top pages are the game’s own', async (t) => {
    await createBoard(beta, 'arena')
    const b = await createUser(beta)
    t.equal((await submit(beta, 'arena', b.userId, 50)).statusCode, 200)
    assertError(t, await alpha.call({ method: 'GET', url: '/leaderboards/arena/top' }), 404, 'LEADERBOARD_NOT_FOUND')
    assertError(
      t,
      await alpha.admin({ method: 'GET', url: '/leaderboards/arena/entries' }),
      404,
      'LEADERBOARD_NOT_FOUND',
    )
    const entries = (await beta.admin({ method: 'GET', url: '/leaderboards/arena/entries' })).json()
    t.same(
      entries.items.map((e: { userId: string }) => e.userId),
      [b.userId],
      'the admin prefix lists the game’s entries',
    )

    // The default board exists in both: a top page read (and cached) in one is not the other's.
    const a = await createUser(alpha)
    t.equal((await submit(alpha, 'default', a.userId, 10)).statusCode, 200)
    const top = (app: TestApp) => app.call({ method: 'GET', url: '/leaderboards/default/top?limit=10' })
    const ids = async (app: TestApp) => (await top(app)).json().entries.map((e: { userId: string }) => e.userId)
    t.same(await ids(alpha), [a.userId], 'read in default, now cached')
    t.same(await ids(beta), [], "beta's default board is empty")
    t.equal((await submit(beta, 'default', b.userId, 99)).statusCode, 200)
    t.same(await ids(beta), [b.userId], "beta's submit marks beta's page")
    t.same(await ids(alpha), [a.userId], "and leaves default's as it was")
  })

  t.test('the audit log under a game prefix lists that game’s writes; operators are server-wide', async (t) => {
    // The audit list shows no game field: each game's entries are told apart by what they wrote.
    const entries = async (app: TestApp) =>
      (await app.admin({ method: 'GET', url: '/audit?limit=100' })).json().items as Array<{
        action: string
        target: Record<string, unknown> | null
        changes: Record<string, unknown> | null
      }>
    const configs = (list: Awaited<ReturnType<typeof entries>>) =>
      list.filter((e) => e.action === 'PUT /remote-config/:configKey').map((e) => e.changes?.value)
    const inBeta = await entries(beta)
    t.same(configs(inBeta), ['beta'], 'beta lists its own config write')
    t.ok(
      inBeta.some((e) => e.target?.boardKey === 'arena'),
      'and its board',
    )
    const inDefault = await entries(alpha)
    t.same(configs(inDefault), ['default'], 'the un-prefixed route lists default’s')
    t.notOk(inDefault.some((e) => e.target?.boardKey === 'arena'))
    assertError(t, await beta.admin({ method: 'GET', url: '/operators' }), 404, 'NOT_FOUND')
    assertError(
      t,
      await beta.admin({
        method: 'POST',
        url: '/operators',
        payload: { username: 'x', password: 'p'.repeat(12), role: 'viewer' },
      }),
      404,
      'NOT_FOUND',
    )
    assertError(t, await beta.admin({ method: 'GET', url: '/session' }), 404, 'NOT_FOUND')
    t.equal((await alpha.admin({ method: 'GET', url: '/operators' })).statusCode, 200, 'served without the prefix')
  })

  // The bystander every SQLite test app holds (test/helpers/bystander.ts) is there, with its data,
  // and none of it shows in default: the suite's reads of default would see it if one leaked.
  const noBystander =
    dialect !== 'sqlite' ? 'the server legs have no bystander' : !bystanderOn() && 'TEST_BYSTANDER=off'
  t.test("the bystander's data is in its own game only", { skip: noBystander }, async (t) => {
    const inBystander = (url: string) =>
      alpha.app.inject({ url: `${ADMIN}/games/${BYSTANDER}${url}`, headers: { 'x-admin-key': ADMIN_KEY } })
    const query = `/users?query=${encodeURIComponent(BYSTANDER_PLAYER)}`
    t.equal((await inBystander(query)).json().items.length, 1, 'its player is in its game')
    t.same((await alpha.admin({ method: 'GET', url: query })).json().items, [], 'not in default')
    const scores = (list: Array<{ score: number }>) => list.map((e) => e.score)
    const entries = (await inBystander('/leaderboards/default/entries')).json().items
    t.ok(scores(entries).includes(BYSTANDER_SCORE), 'its score is on its board')
    const top = await alpha.call({ method: 'GET', url: '/leaderboards/default/top?limit=100' })
    t.notOk(scores(top.json().entries).includes(BYSTANDER_SCORE), "not on default's")
    const titles = (list: Array<{ title: string }>) => list.map((n) => n.title)
    t.ok(titles((await inBystander('/news')).json().items).includes(BYSTANDER_NEWS), 'its news')
    t.notOk(titles((await alpha.admin({ method: 'GET', url: '/news' })).json().items).includes(BYSTANDER_NEWS))
  })
})
