import t from 'tap'
import { COPY_PARTS } from '../../features/games/copy-schemas.js'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import { addOperator, adminApi, openPage, shoot, signIn, startServer } from '../helpers/console-server.js'

/**
 * The console's promotion page (contract §14, copy-from), in chromium against the real server and its
 * real games: the chosen game is the target; the owner picks the source and the parts, sees each
 * part's difference before anything is written, and applies it after a confirmation. A change of
 * source or parts hides a difference shown for another question.
 */

t.test('promoting staging to production from the console', { skip: chromiumSkip, timeout: 240_000 }, async (t) => {
  const server = await startServer(t)
  const { base } = server
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await adminApi(base, method, path, body)
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  await admin('POST', '/games', { id: 'staging', name: 'Staging' })
  await admin('POST', '/games', { id: 'production', name: 'Production' })
  await admin('PUT', '/games/staging/remote-config/motd', { value: 'Season 2' })
  await admin('PUT', '/games/staging/remote-config/shop.discount', { value: '0.2' })
  await admin('PUT', '/games/production/remote-config/motd', { value: 'Welcome' })
  await admin('PUT', '/games/production/remote-config/beta.banner', { value: 'on' })
  await admin('PUT', '/games/staging/leaderboards/arena', { name: 'Arena S2', sortOrder: 'asc' })
  await admin('PUT', '/games/production/leaderboards/old', { name: 'Old', sortOrder: 'desc' })
  const configOf = async (game: string) =>
    ((await admin('GET', `/games/${game}/remote-config`)).items as Array<{ key: string; value: string }>)
      .map((c) => `${c.key}=${c.value}`)
      .sort()
  const productionBefore = await configOf('production')

  addOperator(server.env, 'ada', 'owner')
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const { context, page, problems } = await openPage(browser)
  t.teardown(() => context.close())
  const copies: Array<{ path: string; body: any }> = []
  page.on('request', (request) => {
    if (request.url().includes('/copy-from'))
      copies.push({ path: new URL(request.url()).pathname, body: request.postDataJSON() })
  })
  await signIn(page, base, 'ada')
  await page.getByLabel('Game', { exact: true }).locator('option', { hasText: 'Production' }).waitFor({
    state: 'attached',
  })
  await page.getByLabel('Game', { exact: true }).selectOption('production')
  await page.getByRole('link', { name: 'Promote', exact: true }).click()
  await page.getByRole('heading', { name: 'Promote' }).waitFor()

  const source = page.getByLabel('Copy to Production from')
  t.same(await source.locator('option').allTextContents(), ['Default', 'Staging'], 'the other games are the sources')
  await source.selectOption('staging')
  const checks = page.getByRole('group', { name: 'Parts' }).getByRole('checkbox')
  t.equal(await checks.count(), COPY_PARTS.length, "a box for each of the server's parts")
  for (const label of ['Localization', 'News', 'Cosmetics', 'Validation rules and values', 'E-mail templates'])
    await page.getByLabel(label, { exact: true }).uncheck()

  // ---- the difference, before anything is written ----
  await page.getByRole('button', { name: 'Show difference' }).click()
  const config = page.getByRole('region', { name: 'Remote config' })
  await config.waitFor()
  t.match(await config.textContent(), /1 added, 1 changed, 1 removed/, "remote config's counts")
  const row = (part: typeof config, key: string) => part.getByRole('row').filter({ hasText: key })
  t.match(await row(config, 'shop.discount').textContent(), /added.*shop\.discount.*—.*0\.2/)
  t.match(await row(config, 'motd').textContent(), /changed.*motd.*Welcome.*Season 2/)
  t.match(await row(config, 'beta.banner').textContent(), /removed.*beta\.banner.*on.*—/)
  const boards = page.getByRole('region', { name: 'Leaderboard definitions' })
  t.match(await row(boards, 'old').textContent(), /not in source: kept/, 'a board the source lacks is kept')
  t.match(await row(boards, 'arena').textContent(), /added.*arena.*Arena S2/)
  t.equal(await page.getByRole('region', { name: 'News' }).count(), 0, 'parts not asked are not shown')
  t.same(copies, [
    {
      path: '/api/v1/admin/games/production/copy-from',
      body: { source: 'staging', parts: ['remoteConfig', 'leaderboards'], dryRun: true },
    },
  ])
  t.same(await configOf('production'), productionBefore, 'the dry run wrote nothing')
  await shoot(page, 'promote')

  // ---- another question hides the difference ----
  await page.getByLabel('News', { exact: true }).check()
  t.equal(await config.count(), 0, 'a difference of other parts is hidden')
  await page.getByLabel('News', { exact: true }).uncheck()
  await page.getByRole('button', { name: 'Show difference' }).click()
  await config.waitFor()

  // ---- applied after a confirmation ----
  t.match(await boards.textContent(), /1 added, 0 changed, 1 not in source \(kept\)/, "the boards' counts")
  // Five lines, of which four are written: the kept board is not a change.
  const apply = page.getByRole('button', { name: 'Apply 4 changes to Production' })
  await apply.click()
  t.equal(copies.length, 2, 'nothing is sent before the confirmation')
  await page.getByRole('button', { name: 'Confirm: overwrite Production from Staging' }).click()
  await page.getByRole('status').filter({ hasText: 'Promoted Staging to Production' }).waitFor()
  await page.getByRole('heading', { name: 'Applied to Production from Staging' }).waitFor()
  t.same(copies.at(-1)?.body, { source: 'staging', parts: ['remoteConfig', 'leaderboards'], dryRun: false })
  t.same(await configOf('production'), await configOf('staging'), "production's remote config is staging's")
  // The entry is the server's (a game's own admin routes are server-wide), naming the game it was for.
  const audit = await admin('GET', '/audit?limit=1')
  t.match(audit.items[0], { action: /copy-from/, actor: 'ada', game: 'production' }, 'audited, as ada, for production')

  // ---- nothing left to promote ----
  await page.getByRole('button', { name: 'Show difference' }).click()
  await page.getByText('Nothing to apply: Production already has these parts as they are in Staging.').waitFor()
  t.match(await row(boards, 'old').textContent(), /not in source: kept/, 'the kept board is still listed')
  t.equal(await page.getByRole('button', { name: /^Apply/ }).count(), 0, 'nothing to apply')
  t.same(problems, [], 'no CSP violation, no script error')
})
