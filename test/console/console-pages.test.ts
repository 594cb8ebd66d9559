import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { Page } from 'playwright-core'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import { addOperator, adminApi, openPage, SHOTS, shoot, signIn, startServer } from '../helpers/console-server.js'
import { CRASH_MESSAGE, LONG_FRAME, seedConsole, STACK_TRACE } from '../helpers/console-seed.js'

/**
 * The console's pages as an operator reads them, in chromium against the real server: a crash group
 * as a page (not JSON), an audit table that fits, even overview cards, chart legends with values,
 * numbers with separators, verbs on buttons, a player's crashes listed, feedback by player name;
 * at 1280 and at 390 px, where no page scrolls sideways.
 */

const WIDE = { width: 1280, height: 860 }
const NARROW = { width: 390, height: 844 }

/** The page is no wider than the window: whatever is wide scrolls inside its own box. */
const pageFits = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as any).document.documentElement
    return root.scrollWidth <= root.clientWidth
  })

/** Cards per row, from their top edges: [4, 4] is two even rows of four. */
const cardRows = (page: Page) =>
  page.locator('.cards .card').evaluateAll((cards) => {
    const rows = new Map<number, number>()
    for (const card of cards as any[]) {
      const top = Math.round(card.getBoundingClientRect().top)
      rows.set(top, (rows.get(top) ?? 0) + 1)
    }
    return [...rows.values()]
  })

t.test('the console pages in chromium', { skip: chromiumSkip, timeout: 240_000 }, async (t) => {
  const server = await startServer(t)
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const base = server.base
  const seeded = await seedConsole(base)
  addOperator(server.env, 'ada', 'owner')
  const shots: string[] = []
  /** A page at 1280 and at 390 px: `check` states what must hold, then the screenshots are taken. */
  const both = (name: string, hash: string, check: (t: Test, page: Page) => Promise<unknown>) =>
    t.test(`${name} at 1280 and 390 px`, async (t) => {
      for (const [width, viewport] of [
        [1280, WIDE],
        [390, NARROW],
      ] as const) {
        const { context, page, problems } = await openPage(browser, 'light', viewport)
        t.teardown(() => context.close())
        await signIn(page, base, 'ada', width === 390)
        await page.goto(`${base}/console/#${hash}`)
        await check(t, page)
        t.ok(await pageFits(page), `${name} at ${width} px: the page does not scroll sideways`)
        await shoot(page, `${name}-${width}`)
        shots.push(`${name}-${width}`)
        t.same(problems, [], `${name} at ${width} px: no CSP violation, no script error`)
      }
    })

  t.test('a crash group: its message as title, the trace as lines, facts, the players linked', async (t) => {
    const { context, page } = await openPage(browser)
    t.teardown(() => context.close())
    await signIn(page, base, 'ada')
    await page.getByRole('link', { name: 'Crashes', exact: true }).click()
    // The list links the message to the group's page.
    await page.getByRole('link', { name: CRASH_MESSAGE }).click()
    await page.waitForURL(`**/#/crashes/${seeded.groupId}`)
    await page.getByRole('heading', { level: 1, name: CRASH_MESSAGE }).waitFor()
    t.notMatch(await page.locator('h1').textContent(), /^CRASH$/, 'not the bare type')
    const trace = page.getByLabel('Stack trace')
    t.equal(await trace.evaluate((el) => el.tagName), 'PRE')
    t.equal(await trace.textContent(), STACK_TRACE, 'the trace as sent, its lines real lines')
    t.notMatch(await page.locator('main').textContent(), /\\n/, 'no literal \\n anywhere')
    t.equal(await page.locator('pre.json').count(), 0, 'no raw JSON box')
    const facts = await page.getByRole('region', { name: 'Crash group' }).textContent()
    t.match(facts, /TypeCRASH/)
    t.match(facts, /Occurrences3/)
    t.match(facts, /Players3/)
    const players = page.getByRole('table', { name: 'Affected players' })
    await players.getByRole('link', { name: 'ann', exact: true }).waitFor()
    t.equal(
      await players.getByRole('link', { name: 'ann', exact: true }).getAttribute('href'),
      `#/players/${seeded.ann.id}`,
    )
    t.equal(
      await players.getByRole('link', { name: 'bob', exact: true }).getAttribute('href'),
      `#/players/${seeded.bob.id}`,
    )
    t.ok(await players.getByText('player-7781').isVisible(), 'an id no user has, shown as sent')
  })

  both('crash', `/crashes/${seeded.groupId}`, async (t, page) => {
    const trace = page.getByLabel('Stack trace')
    await trace.waitFor()
    // The long frame stays one line: the box scrolls sideways, the page does not.
    t.ok(await trace.evaluate((el) => el.scrollWidth > el.clientWidth), 'the long frame scrolls inside the trace box')
    t.ok((await trace.textContent())?.includes(LONG_FRAME))
  })

  both('audit', '/audit', async (t, page) => {
    await page.getByRole('row').filter({ hasText: 'POST /users/:userId/ban' }).waitFor()
    if ((page.viewportSize()?.width ?? 0) < 1280) return
    const fits = await page
      .locator('.table-wrap')
      .first()
      .evaluate((wrap) => wrap.scrollWidth <= wrap.clientWidth)
    t.ok(fits, 'at 1280 px every column of the audit log shows, the last one included')
  })

  both('overview', '/', async (t, page) => {
    await page.locator('[data-chart="active"] .chart-plot[data-drawn="true"]').waitFor()
    const narrow = (page.viewportSize()?.width ?? 0) < 720
    t.same(await cardRows(page), narrow ? [2, 2, 2, 2] : [4, 4], 'the cards fill even rows')
    // The legend says the latest day's value before any hover, never "--".
    const legend = (await page.locator('[data-chart="active"] .u-legend').textContent()) ?? ''
    t.notMatch(legend, /--/, 'no "--" in the legend')
    const values = ((await page.locator('[data-chart="active"]').getAttribute('data-values')) ?? '').split(',')
    const latest = [...values].reverse().find((v) => v !== '') ?? null
    t.match(legend, new RegExp(`Active players:?\\s*${latest === null ? '—' : Number(latest).toLocaleString('en')}`))
    t.match(legend, /Day \(UTC\):?\s*\d{4}-\d\d-\d\d/, 'and its day')
    const email = await page.locator('[data-count="emailsQueued"]').textContent()
    t.notMatch(email, /feedback|gift/i, 'the e-mail card holds e-mail figures only')
    t.equal(await page.locator('[data-count="feedback"] .value').textContent(), '1', 'feedback has its own card')
  })

  both('leaderboard', '/leaderboards/cup', async (t, page) => {
    const score = page.getByRole('cell', { name: '1,000,000', exact: true })
    await score.waitFor()
    t.equal(
      await score.evaluate((el) => (globalThis as any).getComputedStyle(el).textAlign),
      'right',
      'scores right-aligned',
    )
    t.equal(await page.getByRole('cell', { name: '1000000' }).count(), 0, 'no raw 1000000')
    const ban = page.getByRole('form', { name: 'Ban a player from this board' }).getByRole('button', { name: 'Ban' })
    t.equal(await ban.count(), 1, 'the board ban button says Ban')
  })

  both('feedback', '/feedback', async (t, page) => {
    const link = page.getByRole('link', { name: 'ann', exact: true })
    await link.waitFor()
    t.equal(await link.getAttribute('href'), `#/players/${seeded.ann.id}`, "the player's name, linked")
    t.notMatch(await page.locator('main').textContent(), new RegExp(seeded.ann.id.slice(0, 8)), 'no id prefix')
  })

  both('player-crashes', `/players/${seeded.ann.id}`, async (t, page) => {
    const summary = page.getByRole('region', { name: 'Summary' })
    await summary.getByText('1, 1 crashed').waitFor()
    t.match(await summary.textContent(), /Crashes1/)
    await page.getByRole('tab', { name: 'Crashes' }).click()
    const reports = page.getByRole('table', { name: 'Crash reports' })
    await reports.getByRole('link', { name: CRASH_MESSAGE }).waitFor()
    t.equal(await reports.locator('tbody tr').count(), 1, 'the one crash the summary counts is listed')
    t.equal(await reports.getByRole('link').getAttribute('href'), `#/crashes/${seeded.groupId}`)
    t.equal(await page.getByRole('table', { name: 'Game sessions' }).locator('tbody tr').count(), 1)
  })

  t.test('a player banned and unbanned with buttons named for what they do', async (t) => {
    const { context, page, problems } = await openPage(browser)
    t.teardown(() => context.close())
    await signIn(page, base, 'ada')
    await page.goto(`${base}/console/#/players/${seeded.cleo.id}`)
    const form = page.getByRole('form', { name: 'Ban this player' })
    await form.getByLabel('Reason').fill('spam')
    t.equal(await form.getByRole('button', { name: 'Save' }).count(), 0, 'no "Save" for a ban')
    await form.getByRole('button', { name: 'Ban', exact: true }).click()
    await page.getByRole('button', { name: 'Unban', exact: true }).waitFor()
    t.equal((await adminApi(base, 'GET', `/users/${seeded.cleo.id}`)).body.banned, true, 'banned')
    await page.getByRole('button', { name: 'Unban', exact: true }).click()
    await page.getByRole('form', { name: 'Ban this player' }).waitFor()
    t.equal((await adminApi(base, 'GET', `/users/${seeded.cleo.id}`)).body.banned, false, 'unbanned')
    t.same(problems, [], 'no CSP violation, no script error')
  })

  t.test('every screenshot written', async (t) => {
    for (const name of shots) t.ok(existsSync(join(SHOTS, `${name}-light.png`)), `${name}-light.png`)
  })
})
