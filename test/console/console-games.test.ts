import t from 'tap'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import { addOperator, eventually, openPage, shoot, signIn, startServer } from '../helpers/console-server.js'
import { mockGames } from '../helpers/games-mock.js'

/**
 * The console for several games (contract §14), in chromium against the real server, with the games'
 * admin routes answered by the test (test/helpers/games-mock.ts): an owner lands on the games list
 * with each game's figures; the header's switcher sends every game-scoped request under the chosen
 * game's prefix (and none of the server-wide ones), keeps the choice across a reload and shows the
 * game's name on every page; games are created (the first key shown once), renamed and deleted after
 * typing the id; a game's keys and settings; a non-owner's role is the one held in the chosen game.
 */

/** Server-wide admin paths the shell asks for (the session, the list of games): never under a game's prefix. */
const SERVER_WIDE = /^\/(session|operators|settings)(\/|\?|$)|^\/games(\?.*)?$/

t.test('the console for several games', { skip: chromiumSkip, timeout: 240_000 }, async (t) => {
  const server = await startServer(t)
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const base = server.base
  addOperator(server.env, 'ada', 'owner')
  addOperator(server.env, 'mo', 'moderator')

  t.test('an owner: the games list first, then the switcher', async (t) => {
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    const mock = await mockGames(context)
    await signIn(page, base, 'ada')
    await page.waitForURL('**/console/#/games')
    const table = page.getByRole('table', { name: 'Games' })
    const row = (name: string) => table.getByRole('row').filter({ hasText: name })
    await row('Default game').waitFor()
    t.match(await row('Default game').textContent(), /1,234.*56.*99\.5%/, 'players, active today, crash-free rate')
    t.match(await row('Moon').textContent(), /Moon.*moon.*7.*0.*—/, 'a game without sessions: no rate')
    t.ok(
      mock.requests.some((r) => r.path === '/games?stats=true'),
      'the list asks for the figures',
    )
    const switcher = page.getByLabel('Game', { exact: true })
    t.equal(await switcher.inputValue(), 'default', 'default is chosen at first')
    t.match(await page.title(), /Games · Default game/, "the game's name in the window title")
    await shoot(page, 'games')

    // ---- switch to moon on the players page: its requests go under /games/moon ----
    const defaultUsers = page.waitForResponse(/\/api\/v1\/admin\/users\?/)
    await page.getByRole('link', { name: 'Players', exact: true }).click()
    await defaultUsers
    // Every request of default's page answered before the switch: what comes after is the new game's.
    await page.waitForLoadState('networkidle')
    const before = mock.requests.length
    const moonUsers = page.waitForResponse(/\/api\/v1\/admin\/games\/moon\/users\?/)
    await switcher.selectOption('moon')
    await moonUsers
    await page.getByRole('heading', { name: 'Players' }).waitFor()
    await page.waitForFunction(() => (globalThis as any).document.title.includes('Moon'))
    const after = mock.requests.slice(before).filter((r) => !SERVER_WIDE.test(r.path))
    t.ok(after.length > 0, 'the page loaded its data again')
    t.same(
      after.filter((r) => !r.path.startsWith('/games/moon/')),
      [],
      'every game-scoped request of the new game is under /games/moon/',
    )
    t.equal(await switcher.locator('option:checked').textContent(), 'Moon', 'the header names the game')

    // ---- kept across a reload; server-wide calls stay unprefixed ----
    await page.reload()
    await page.getByRole('heading', { name: 'Players' }).waitFor()
    t.equal(await page.getByLabel('Game', { exact: true }).inputValue(), 'moon', 'still moon after a reload')
    t.notOk(
      mock.requests.some((r) => /^\/games\/moon\/(session|operators|games)/.test(r.path)),
      'no server-wide request under a prefix',
    )
    t.ok(
      mock.requests.some((r) => r.path === '/session'),
      'the session is asked for without a prefix',
    )

    // ---- a page of one record: switching goes to its list ----
    await page.goto(`${base}/console/#/leaderboards/cup`)
    await page.waitForRequest(/\/api\/v1\/admin\/games\/moon\/leaderboards\/cup/)
    const list = page.waitForRequest(/\/api\/v1\/admin\/leaderboards\?/)
    await page.getByLabel('Game', { exact: true }).selectOption('default')
    await page.waitForURL('**/console/#/leaderboards')
    t.match(
      new URL((await list).url()).pathname,
      /\/api\/v1\/admin\/leaderboards$/,
      'default: its routes without a prefix',
    )

    // ---- keys of moon: list, create (the secret once, copied), revoke after a confirmation ----
    await page.getByLabel('Game', { exact: true }).selectOption('moon')
    await page.getByRole('link', { name: 'App keys', exact: true }).click()
    await page.getByRole('cell', { name: 'iOS production', exact: true }).waitFor()
    t.match(await page.locator('main').textContent(), /The keys of Moon/)
    await page.getByRole('button', { name: 'New key' }).click()
    await page.getByLabel('Label').fill('staging')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = page.getByTestId('app-key')
    await secret.waitFor()
    t.match(await secret.textContent(), /^op_new\d+_secret-once$/, 'the secret, shown once')
    t.match(mock.requests.filter((r) => r.method === 'POST').at(-1), {
      method: 'POST',
      path: '/games/moon/keys',
      body: { label: 'staging' },
    })
    await page.getByRole('button', { name: 'Copy key' }).click()
    await page.getByText('Copied', { exact: true }).waitFor()
    t.equal(await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()), await secret.textContent())
    await page.getByRole('button', { name: 'I have kept it' }).click()
    await eventually(async () => (await secret.count()) === 0)
    t.equal(await secret.count(), 0, 'gone once kept')
    await page.getByRole('cell', { name: 'staging', exact: true }).waitFor()
    await page.getByRole('button', { name: 'Revoke iOS production' }).click()
    t.notOk(mock.keys.moon![0]!.revokedAt, 'nothing revoked before the confirmation')
    await page.getByRole('button', { name: 'Confirm revoke' }).click()
    await page.getByRole('status').filter({ hasText: 'Revoked iOS production' }).waitFor()
    t.ok(mock.requests.some((r) => r.method === 'POST' && r.path === '/games/moon/keys/k1/revoke'))
    await page.getByRole('row').filter({ hasText: 'iOS production' }).getByText('revoked').waitFor()

    // ---- settings of moon: which are overridden, a change, a reset ----
    await page.getByRole('link', { name: 'Game settings', exact: true }).click()
    const rate = page.locator('[data-setting="rateLimitPerSecond"]')
    await rate.getByText('set for this game').waitFor()
    t.match(await page.locator('[data-setting="emailFrom"]').textContent(), /the environment's value/)
    t.ok(await page.getByRole('button', { name: 'Save' }).isDisabled(), 'nothing to save before a change')
    await page.getByLabel('E-mail sender').fill('moon@example.com')
    await page.getByLabel('CORS origins (one a line)').fill('https://moon.example\nhttps://www.moon.example')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.locator('[data-setting="emailFrom"]').getByText('set for this game').waitFor()
    t.same(
      mock.requests.filter((r) => r.method === 'PATCH').at(-1),
      {
        method: 'PATCH',
        path: '/games/moon/settings',
        body: { emailFrom: 'moon@example.com', corsOrigins: ['https://moon.example', 'https://www.moon.example'] },
      },
      'only the changed settings are sent',
    )
    await page.getByRole('button', { name: 'Reset Rate limit per second' }).click()
    await rate.getByText("the environment's value").waitFor()
    t.same(mock.requests.filter((r) => r.method === 'PATCH').at(-1)?.body, { rateLimitPerSecond: null })
    await shoot(page, 'game-settings')

    // ---- games: create (its first key shown once), rename, delete after typing the id ----
    await page.getByRole('link', { name: 'Games', exact: true }).click()
    await page.getByRole('button', { name: 'New game' }).click()
    await page.getByLabel('Id').fill('sun')
    await page.getByLabel('Name', { exact: true }).fill('Sun')
    await page.getByRole('button', { name: 'Create game' }).click()
    await page.getByTestId('app-key').waitFor()
    t.match(await page.getByTestId('app-key').textContent(), /^op_sun_secret-once-\d+$/, 'the first key, once')
    t.match(await page.getByRole('region', { name: 'New app key' }).textContent(), /app key of Sun/)
    await page.getByLabel('Game', { exact: true }).locator('option', { hasText: 'Sun' }).waitFor({ state: 'attached' })
    t.pass('the switcher lists the new game')
    await page.getByRole('button', { name: 'Rename Sun' }).click()
    await page.getByLabel('Name', { exact: true }).fill('Sunrise')
    await page.getByRole('button', { name: 'Save' }).click()
    await table.getByRole('row').filter({ hasText: 'Sunrise' }).waitFor()
    t.match(mock.requests.filter((r) => r.method === 'PATCH').at(-1), { path: '/games/sun', body: { name: 'Sunrise' } })
    t.ok(await page.getByRole('button', { name: 'Delete Default game' }).isDisabled(), 'default cannot be deleted')
    await page.getByRole('button', { name: 'Delete Sunrise' }).click()
    const remove = page.getByRole('button', { name: 'Delete game' })
    t.ok(await remove.isDisabled(), 'not before the id is typed')
    await page.getByLabel('Game id to confirm').fill('sunris')
    t.ok(await remove.isDisabled(), 'not for an id nearly typed')
    await page.getByLabel('Game id to confirm').fill('sun')
    await remove.click()
    await table.getByRole('row').filter({ hasText: 'Sunrise' }).waitFor({ state: 'detached' })
    t.match(mock.requests.filter((r) => r.method === 'DELETE').at(-1), { path: '/games/sun', body: { confirm: 'sun' } })

    // ---- the chosen game deleted elsewhere: the console falls back to default ----
    mock.games = mock.games.filter((g) => g.id !== 'moon')
    await page.reload()
    await page.getByRole('table', { name: 'Games' }).waitFor()
    await page.waitForFunction(() => (globalThis as any).document.title.includes('Default game'))
    t.equal(await page.getByLabel('Game', { exact: true }).inputValue(), 'default')

    // ---- 390 px: the switcher in the header, the page not wider than the window ----
    await page.setViewportSize({ width: 390, height: 844 })
    t.ok(await page.getByLabel('Game', { exact: true }).isVisible(), 'the switcher shows on a narrow screen')
    const fits = await page.evaluate(() => {
      const root = (globalThis as any).document.documentElement
      return root.scrollWidth <= root.clientWidth
    })
    t.ok(fits, 'the games page does not scroll sideways at 390 px')
    await shoot(page, 'games-390')
    t.same(problems, [], 'no CSP violation, no script error')
  })

  t.test('a moderator: lands where it did, no owner pages, writes as its role in the chosen game', async (t) => {
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    const mock = await mockGames(context)
    mock.roles.mo = { default: 'moderator', moon: 'viewer' }
    await signIn(page, base, 'mo')
    t.equal(new URL(page.url()).hash, '', 'the overview, as before')
    for (const name of ['Games', 'App keys', 'Game settings'])
      t.equal(await page.getByRole('link', { name, exact: true }).count(), 0, `no ${name} link`)
    await page.getByRole('link', { name: 'Leaderboards', exact: true }).click()
    const create = page.getByRole('button', { name: 'New leaderboard' })
    await create.waitFor()
    await eventually(() => create.isEnabled())
    t.notOk(await create.isDisabled(), 'a moderator of default writes there')
    t.match(await page.locator('.who').textContent(), /mo\s*moderator/)
    await page.getByLabel('Game', { exact: true }).selectOption('moon')
    await page.waitForFunction(() => (globalThis as any).document.title.includes('Moon'))
    await eventually(() => create.isDisabled())
    t.ok(await create.isDisabled(), 'a viewer of moon does not')
    t.match(await page.locator('.who').textContent(), /mo\s*viewer/, 'the header says the role held in moon')
    t.same(problems, [], 'no CSP violation, no script error')
  })
})
