import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { chromium } from 'playwright-core'
import { ADMIN_KEY, API_KEY } from '../helpers/app.js'
import {
  addOperator,
  adminApi,
  appApi,
  eventually,
  openPage,
  PASSWORD,
  SHOTS,
  shoot,
  signIn,
  signUp,
  startServer,
} from '../helpers/console-server.js'

/**
 * The console in a real browser (Debian's chromium, driven by playwright-core) against the real
 * server (node dist/server.js) on a fresh SQLite file and a free 127.0.0.1 port. Pages are found by
 * role and label, as a screen reader would; what the console does is checked through the app API.
 * Screenshots go to test-output/screenshots/.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const skip = existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: apt-get install -y chromium`

t.test('the console in chromium', { skip, timeout: 260_000 }, async (t) => {
  const server = await startServer(t)
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
  t.teardown(() => browser.close())

  t.test('the sign-in form: labelled fields, a refusal shown, nothing refused by the CSP', async (t) => {
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    await page.goto(`${server.base}/console/`)
    await page.getByRole('button', { name: 'Sign in' }).waitFor()
    for (const label of ['Username', 'Password', 'Code']) t.ok(await page.getByLabel(label).isVisible(), label)
    await page.getByLabel('Username').fill('nobody')
    await page.getByLabel('Password').fill('wrong-password')
    // Keyboard: Enter in the form submits it.
    await page.getByLabel('Password').press('Enter')
    const alert = page.getByRole('alert')
    await alert.waitFor()
    t.match(await alert.textContent(), /\[[A-Z_]+\]/, 'the refusal is shown with its code')
    t.equal(await page.getByRole('link', { name: 'Overview' }).count(), 0, 'not signed in')
    t.same(problems, [], 'no CSP violation, no script error')
  })

  t.test('signed in', async (t) => {
    addOperator(server.env, 'alice', 'owner')
    addOperator(server.env, 'victor', 'viewer')
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    await signIn(page, server.base, 'alice')
    for (const name of ['Overview', 'Players', 'Leaderboards', 'Validated runs', 'Remote config', 'Gift codes'])
      t.ok(await page.getByRole('link', { name, exact: true }).isVisible(), `nav link ${name}`)

    // ---- a board, created in the console, filled through the app API ----
    await page.getByRole('link', { name: 'Leaderboards', exact: true }).click()
    await page.getByRole('button', { name: 'New leaderboard' }).click()
    await page.getByLabel('Key').fill('weekly-cup')
    await page.getByLabel('Name').fill('Weekly cup')
    await page.getByLabel('Sort order').selectOption('desc')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('heading', { name: 'Weekly cup' }).waitFor()
    const annPlayer = await signUp(server.base, 'ann')
    const ann = annPlayer.id
    const bob = (await signUp(server.base, 'bob')).id
    t.equal(
      (await appApi(server.base, 'POST', '/leaderboards/weekly-cup/submit', { userId: ann, score: 4200 })).status,
      200,
    )
    t.equal(
      (await appApi(server.base, 'POST', '/leaderboards/weekly-cup/submit', { userId: bob, score: 3100 })).status,
      200,
    )
    await page.reload()
    await page.getByRole('cell', { name: '4,200' }).waitFor()
    const rows = await page.getByRole('row').allTextContents()
    t.match(rows[1], /1.*ann.*4,200/, 'ann first')
    t.match(rows[2], /2.*bob.*3,100/, 'bob second')

    // ---- a board ban: the app API answers PLAYER_BANNED ----
    // The player is picked by name (search as you type), not pasted as an id.
    await page.getByRole('combobox', { name: 'Player' }).fill('bob')
    await page.getByRole('option', { name: /^bob\b/ }).click()
    await page.getByLabel('Reason').fill('cheating')
    await page.getByRole('form', { name: 'Ban a player from this board' }).getByRole('button', { name: 'Ban' }).click()
    await page.getByRole('status').filter({ hasText: 'Banned from the board' }).waitFor()
    const banned = await appApi(server.base, 'POST', '/leaderboards/weekly-cup/submit', { userId: bob, score: 9999 })
    t.equal(banned.status, 403)
    t.equal(banned.body.code, 'PLAYER_BANNED', 'the banned player is refused by the app API')

    // ---- a gift code, created in the console, redeemed through the app API ----
    await page.getByRole('link', { name: 'Gift codes', exact: true }).click()
    await page.getByRole('button', { name: 'New gift code' }).click()
    await page.getByLabel('Code', { exact: true }).fill('SPRING2026')
    await page.getByLabel('Gift data').fill('coins:100')
    await page.getByLabel('Max redemptions').fill('5')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('link', { name: 'SPRING2026' }).waitFor()
    const redeemed = await appApi(server.base, 'POST', '/gift-codes/redeem', { code: 'SPRING2026', userId: ann })
    t.equal(redeemed.status, 200)
    t.equal(redeemed.body.success, true, 'redeemed through the app API')
    t.equal(redeemed.body.giftData, 'coins:100')

    // ---- remote config: the editor refuses bad JSON, saves good JSON, the app API reads it ----
    await page.getByRole('link', { name: 'Remote config', exact: true }).click()
    await page.getByRole('button', { name: 'New config value' }).click()
    await page.getByLabel('Key').fill('motd')
    await page.getByLabel('Value', { exact: true }).fill('{"text": "hello"')
    await page.getByRole('alert').filter({ hasText: 'Not valid JSON' }).waitFor()
    t.ok(await page.getByRole('button', { name: 'Save' }).isDisabled(), 'Save is off while the JSON is invalid')
    await page.getByLabel('Value', { exact: true }).fill('{"text": "hello"}')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('cell', { name: 'motd', exact: true }).waitFor()
    const config = await appApi(server.base, 'GET', '/remote-config/motd')
    t.equal(config.status, 200)
    t.equal(config.body.configValue, '{"text": "hello"}', 'the app API reads the saved value')

    // ---- a suspicious run in the review queue, rejected in the console ----
    await adminApi(server.base, 'PUT', '/leaderboards/arena', { name: 'Arena', validatedOnly: true })
    await adminApi(server.base, 'PUT', '/validated-actions/rules/arena', { minDurationSeconds: 0, susScore: 100 })
    const started = await appApi(
      server.base,
      'POST',
      '/validated-actions/runs',
      { userId: ann, leaderboardKey: 'arena' },
      annPlayer.accessToken,
    )
    t.equal(started.status, 200)
    const submitted = await appApi(
      server.base,
      'POST',
      '/validated-actions/submit',
      { userId: ann, ticket: started.body.ticket, inputLogHash: 'a'.repeat(64), score: 5000 },
      annPlayer.accessToken,
    )
    t.equal(submitted.body.sus, true, 'the run is suspicious')
    await page.getByRole('link', { name: 'Validated runs', exact: true }).click()
    const shortId = (started.body.runId as string).slice(0, 8)
    await page.getByRole('button', { name: `Reject run ${shortId}` }).waitFor()
    await shoot(page, 'review-queue')
    await page.getByRole('button', { name: `Reject run ${shortId}` }).click()
    await page.getByRole('row').filter({ hasText: shortId }).getByText('rejected').waitFor()
    const run = await adminApi(server.base, 'GET', `/validated-actions/runs/${started.body.runId}`)
    t.equal(run.body.review.verdict, 'REJECTED', 'the verdict is stored')
    const top = await appApi(server.base, 'GET', '/leaderboards/arena/top')
    t.same(top.body.entries ?? [], [], 'the rejected score left the board')

    // ---- the overview and a player's page, light and dark ----
    await page.getByRole('link', { name: 'Overview', exact: true }).click()
    await page.getByText('Open run reviews').waitFor()
    await shoot(page, 'overview')
    await page.getByRole('link', { name: 'Players', exact: true }).click()
    await page.getByLabel('Search').fill('ann')
    await page.getByLabel('Search').press('Enter')
    await page.getByRole('link', { name: 'ann', exact: true }).click()
    await page.getByRole('heading', { name: 'ann' }).waitFor()
    await page.getByRole('tab', { name: 'Activity' }).click()
    await page.getByRole('heading', { name: 'Runs' }).waitFor()
    await shoot(page, 'player')
    for (const name of ['overview', 'player', 'review-queue'])
      for (const scheme of ['light', 'dark'])
        t.ok(existsSync(join(SHOTS, `${name}-${scheme}.png`)), `${name}-${scheme}.png`)
    t.same(problems, [], 'no CSP violation, no script error')

    // ---- a viewer: no write button works, and a forced write is refused ----
    const viewer = await openPage(browser)
    t.teardown(() => viewer.context.close())
    await signIn(viewer.page, server.base, 'victor')
    await viewer.page.getByRole('link', { name: 'Leaderboards', exact: true }).click()
    await viewer.page.getByRole('link', { name: 'weekly-cup' }).waitFor()
    t.ok(await viewer.page.getByRole('button', { name: 'New leaderboard' }).isDisabled(), 'New leaderboard is disabled')
    await viewer.page.getByRole('link', { name: 'weekly-cup' }).click()
    await viewer.page.getByRole('heading', { name: 'Weekly cup' }).waitFor()
    const enabledWrites = await viewer.page
      .getByRole('button', { name: /^(Edit|Reset board|Delete board|Ban|Lift board ban)$/ })
      .evaluateAll((buttons) => buttons.filter((b) => !(b as unknown as { disabled: boolean }).disabled).length)
    t.equal(enabledWrites, 0, 'every write button is disabled for a viewer')
    await viewer.page.getByRole('button', { name: 'Actions for ann' }).click()
    t.ok(
      await viewer.page.getByRole('menuitem', { name: 'Remove entry' }).isDisabled(),
      "a row's remove is disabled for a viewer",
    )
    const forced = await viewer.page.evaluate(async () => {
      const res = await fetch('../api/v1/admin/leaderboards/forced', {
        method: 'PUT',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-requested-with': 'outpost-console' },
        body: JSON.stringify({ name: 'Forced' }),
      })
      return { status: res.status, body: (await res.json()) as { code?: string } }
    })
    t.equal(forced.status, 403, 'the server refuses the viewer')
    t.equal(forced.body.code, 'FORBIDDEN')
    t.equal(
      (await adminApi(server.base, 'GET', '/leaderboards')).body.items.filter((b: any) => b.key === 'forced').length,
      0,
    )
  })

  t.test("owner pages: operators, audit log, settings, localization grid, a player's data", async (t) => {
    // Made through the admin API with the key, as a script would: the CLI path is covered above.
    const made = await adminApi(server.base, 'POST', '/operators', {
      username: 'olga',
      password: PASSWORD,
      role: 'owner',
    })
    t.equal(made.status, 201)
    t.equal(
      (await adminApi(server.base, 'POST', '/operators', { username: 'vera', password: PASSWORD, role: 'viewer' }))
        .status,
      201,
    )
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    await signIn(page, server.base, 'olga')
    for (const name of ['Localization', 'Operators', 'Audit log', 'Settings'])
      t.ok(await page.getByRole('link', { name, exact: true }).isVisible(), `nav link ${name}`)

    // ---- operators: the owner adds one; the admin API has it with its role ----
    await page.getByRole('link', { name: 'Operators', exact: true }).click()
    await page.getByRole('cell', { name: 'vera', exact: true }).waitFor()
    await page.getByRole('button', { name: 'New operator' }).click()
    await page.getByLabel('Username').fill('carol')
    await page.getByLabel('Password').fill('carols-first-password')
    await page.getByLabel('Role', { exact: true }).selectOption('moderator')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('cell', { name: 'carol', exact: true }).waitFor()
    const operators = (await adminApi(server.base, 'GET', '/operators')).body.items as Array<{
      username: string
      role: string
    }>
    t.match(
      operators.find((o) => o.username === 'carol'),
      { role: 'moderator', totpEnabled: false },
      'stored with the chosen role',
    )

    // ---- the audit log shows that action, by whom; never the password ----
    await page.getByRole('link', { name: 'Audit log', exact: true }).click()
    await page.getByLabel('Actor').fill('olga')
    await page.getByLabel('Action').fill('POST /operators')
    const entry = page.getByRole('row').filter({ hasText: 'POST /operators' })
    await entry.first().waitFor()
    t.equal(await entry.count(), 1, 'one entry: the operator olga made (the admin key made the other two)')
    t.match(await entry.textContent(), /olga \(owner\).*POST \/operators.*201/, 'who, what and the answer')
    t.notMatch(await page.content(), /carols-first-password/, 'the password is not in the audit log')

    // ---- settings: secrets masked, their values nowhere in the page ----
    await page.getByRole('link', { name: 'Settings', exact: true }).click()
    const adminKeyRow = page
      .getByRole('row')
      .filter({ has: page.getByRole('cell', { name: 'ADMIN_API_KEY', exact: true }) })
    await adminKeyRow.waitFor()
    t.match(await adminKeyRow.textContent(), /secret, set/, 'the admin key shows as a set secret')
    t.match(
      await page
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name: 'PORT', exact: true }) })
        .textContent(),
      server.env.PORT,
      'a plain setting shows its value',
    )
    const html = await page.content()
    t.notOk(html.includes(ADMIN_KEY), 'the admin key is not in the page')
    t.notOk(html.includes(API_KEY), 'the API key is not in the page')

    // ---- localization: a cell edited in the grid, a language added; the app API reads both ----
    await adminApi(server.base, 'PUT', '/localization/en', {
      translations: { 'menu.play': 'Play', 'menu.quit': 'Quit' },
    })
    await adminApi(server.base, 'PUT', '/localization/de/menu.play', { value: 'Spielen' })
    await page.getByRole('link', { name: 'Localization', exact: true }).click()
    await page.getByRole('button', { name: 'menu.play in de: Spielen' }).click()
    await page.getByLabel('Value', { exact: true }).fill('Los geht’s')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('button', { name: 'menu.play in de: Los geht’s' }).waitFor()
    const de = await appApi(server.base, 'GET', '/localization/menu.play?lang=de')
    t.match(de.body, { value: 'Los geht’s', resolvedLang: 'de' }, 'the app API reads the edited cell')
    await page.getByLabel('Language', { exact: true }).fill('fr')
    await page.getByRole('button', { name: 'Add language' }).click()
    // Keyboard: Enter on a cell opens its editor with the focus in it; Escape puts the focus back.
    const frCell = page.getByRole('button', { name: 'menu.quit in fr: missing' })
    await frCell.focus()
    await page.keyboard.press('Enter')
    const valueField = page.getByLabel('Value', { exact: true })
    await valueField.waitFor()
    // The focus moves after the render that shows or removes the editor: polled, at most 5 s.
    const focused = (locator: typeof frCell) => () => locator.evaluate((el) => el === el.ownerDocument.activeElement)
    await eventually(focused(valueField))
    t.ok(await focused(valueField)(), 'the editor takes the keyboard')
    await page.keyboard.press('Escape')
    await valueField.waitFor({ state: 'detached' })
    await eventually(focused(frCell))
    t.ok(await focused(frCell)(), 'Escape returns to the cell')
    await frCell.click()
    await page.getByLabel('Value', { exact: true }).fill('Quitter')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('button', { name: 'menu.quit in fr: Quitter' }).waitFor()
    const fr = await appApi(server.base, 'GET', '/localization/menu.quit?lang=fr')
    t.match(fr.body, { value: 'Quitter', resolvedLang: 'fr' }, 'a new language, saved with its first value')

    // ---- a player's page: sessions, cloud save, board entries, redemptions, the export ----
    const dora = await signUp(server.base, 'dora')
    await adminApi(server.base, 'PUT', '/leaderboards/sprint', { name: 'Sprint' })
    await appApi(server.base, 'POST', '/leaderboards/sprint/submit', { userId: dora.id, score: 77 })
    await appApi(server.base, 'POST', '/cloud-save/save', { userId: dora.id, data: '{"level":12}' }, dora.accessToken)
    await adminApi(server.base, 'POST', '/gift-codes', { code: 'DORA1', giftData: 'gems:5', maxRedemptions: 1 })
    await appApi(server.base, 'POST', '/gift-codes/redeem', { code: 'DORA1', userId: dora.id })
    await page.goto(`${server.base}/console/#/players/${dora.id}`)
    await page.getByRole('heading', { name: 'dora' }).waitFor()
    await page.getByRole('tab', { name: 'Data' }).click()
    await page.getByLabel('Cloud save data').getByText('{"level":12}').waitFor()
    t.ok(await page.getByRole('link', { name: 'sprint', exact: true }).isVisible(), 'the board entry')
    t.ok(await page.getByRole('cell', { name: '77', exact: true }).isVisible(), 'its score')
    t.ok(await page.getByRole('link', { name: 'DORA1', exact: true }).isVisible(), 'the redemption')
    t.ok(
      await page.getByRole('table', { name: 'Sessions' }).getByRole('cell', { name: 'active' }).isVisible(),
      'a session',
    )
    const [exported] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export' }).click(),
    ])
    const document = JSON.parse(readFileSync(await exported.path(), 'utf8'))
    t.equal(document.account.userId, dora.id, 'the export downloads as JSON')
    const [save] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download save' }).click(),
    ])
    t.equal(readFileSync(await save.path(), 'utf8'), '{"level":12}', 'the cloud save downloads as stored')

    // ---- revoke sessions: confirmed in place, then the app API refuses the player's token ----
    await page.getByRole('tab', { name: 'Account' }).click()
    await page.getByRole('button', { name: 'Revoke sessions' }).click()
    await page.getByRole('button', { name: 'Confirm revoke sessions' }).click()
    await page.getByRole('status').filter({ hasText: 'Sessions revoked' }).waitFor()
    const signedOut = await appApi(server.base, 'POST', '/user-management/check-auth', {
      userId: dora.id,
      sessionToken: dora.accessToken,
    })
    t.equal(signedOut.body.authStatus, 'INVALID_TOKEN', "the player's session is revoked")
    // The page reloads the player after the status shows: wait for the button to follow (at most 5 s).
    await page.getByRole('button', { name: 'Revoke sessions', disabled: true }).waitFor({ timeout: 5000 })
    t.ok(await page.getByRole('button', { name: 'Revoke sessions' }).isDisabled(), 'nothing left to revoke')
    t.same(problems, [], 'no CSP violation, no script error')

    // ---- a viewer: no owner pages, and no write button that works on the new ones ----
    const viewer = await openPage(browser)
    t.teardown(() => viewer.context.close())
    await signIn(viewer.page, server.base, 'vera')
    for (const name of ['Operators', 'Audit log', 'Settings'])
      t.equal(await viewer.page.getByRole('link', { name, exact: true }).count(), 0, `no ${name} link for a viewer`)
    await viewer.page.goto(`${server.base}/console/#/settings`)
    await viewer.page.getByRole('heading', { name: 'Not found' }).waitFor()
    await viewer.page.getByRole('link', { name: 'Localization', exact: true }).click()
    await viewer.page.getByRole('button', { name: 'menu.play in en: Play' }).waitFor()
    const writes = viewer.page.getByRole('button', {
      name: /^(New translation|Add language|Delete language .*|menu\..* in .*)$/,
    })
    t.ok((await writes.count()) >= 7, 'the grid cells, the language deletes, New translation and Add language')
    const enabled = await writes.evaluateAll(
      (buttons) => buttons.filter((b) => !(b as unknown as { disabled: boolean }).disabled).length,
    )
    t.equal(enabled, 0, 'every write button on the localization page is disabled for a viewer')
    await viewer.page.goto(`${server.base}/console/#/players/${dora.id}`)
    await viewer.page.getByRole('heading', { name: 'dora' }).waitFor()
    t.notOk(await viewer.page.getByRole('button', { name: 'Export' }).isDisabled(), 'a viewer may read the export')
    t.same(viewer.problems, [], 'no CSP violation, no script error for the viewer')
  })
})
