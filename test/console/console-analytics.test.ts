import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import {
  addOperator,
  adminApi,
  adminText,
  appApi,
  openPage,
  SHOTS,
  signIn,
  signUp,
  startServer,
} from '../helpers/console-server.js'

/**
 * The console's charts in a real browser against the real server: the numbers drawn are the numbers
 * the analytics API answers (read from each chart's data and text alternative, compared with a direct
 * admin call), the canvas holds the series in the theme's colour, in light and dark, and at 390 px the
 * page neither scrolls sideways nor wraps its menu.
 */

const DAY_MS = 86_400_000
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)
const range = (days: number) => ({ from: isoDay(Date.now() - (days - 1) * DAY_MS), to: isoDay(Date.now()) })
const CHARTS = ['active', 'signups', 'crashFreeRate', 'submits'] as const

/** The series as the chart's data attribute writes it: values joined by commas, null as ''. */
const asAttribute = (values: Array<number | null>) => values.map((v) => (v === null ? '' : String(v))).join(',')

async function daily(base: string, query: Record<string, string>) {
  const res = await adminApi(base, 'GET', `/analytics/daily?${new URLSearchParams(query)}`)
  if (res.status !== 200) throw new Error(`daily: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body as { days: string[]; series: Record<string, Array<number | null>> }
}

/** Pixels of the chart's canvases drawn in `colour` (the series' line: opaque, within ±3 per channel). */
function linePixels(page: Page, chart: string, colour: string) {
  return page.evaluate(
    ({ chart, colour }) => {
      // Runs in the page: the browser's globals, untyped here (the tests compile without the DOM library).
      const { document, getComputedStyle } = globalThis as any
      const probe = document.createElement('span')
      probe.style.color = colour
      document.body.append(probe)
      const [r, g, b] = getComputedStyle(probe).color.match(/\d+/g)!.map(Number)
      probe.remove()
      let count = 0
      for (const canvas of document.querySelectorAll(`[data-chart="${chart}"] canvas`) as any[]) {
        const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data
        for (let i = 0; i < data.length; i += 4) {
          if (
            data[i + 3] > 200 &&
            Math.abs(data[i] - r) <= 3 &&
            Math.abs(data[i + 1] - g) <= 3 &&
            Math.abs(data[i + 2] - b) <= 3
          )
            count++
        }
      }
      return count
    },
    { chart, colour },
  )
}

async function drawn(page: Page, chart: string) {
  await page.locator(`[data-chart="${chart}"] .chart-plot[data-drawn="true"]`).waitFor()
}

const LIGHT_ACCENT = '#1d5fd1'
const DARK_ACCENT = '#6ea2ff'

t.test('the analytics charts in chromium', { skip: chromiumSkip, timeout: 300_000 }, async (t) => {
  const server = await startServer(t)
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const base = server.base

  // ---- a small game: five players, one board with five scores, two app versions, one crash ----
  await adminApi(base, 'PUT', '/leaderboards/cup', { name: 'Cup', sortOrder: 'desc' })
  const players: Array<{ name: string; id: string; accessToken: string }> = []
  for (const name of ['pia', 'quinn', 'rosa', 'sami', 'tove']) players.push({ name, ...(await signUp(base, name)) })
  for (const [i, score] of [10, 20, 30, 40, 1000].entries())
    t.equal((await appApi(base, 'POST', '/leaderboards/cup/submit', { userId: players[i].id, score })).status, 200)
  const session = (sessionId: string, appVersion: string, userId: string) =>
    appApi(base, 'POST', '/crash-reports/session', { sessionId, appVersion, platform: 'android', userId })
  t.equal((await session('s-141', '1.4.1', players[0].id)).status, 201)
  t.equal((await session('s-142', '1.4.2', players[1].id)).status, 201)
  const crash = await appApi(base, 'POST', '/crash-reports/create', {
    type: 'CRASH',
    message: 'boom',
    fingerprint: 'boom-1',
    appVersion: '1.4.2',
    sdkVersion: '1',
    platform: 'android',
    os: 'Android 15',
    deviceModel: 'Pixel',
    sessionId: 's-142',
    userId: players[1].id,
  })
  t.equal(crash.status, 201)

  // The activity marks flush every few seconds and today's rollup is rebuilt every half minute: wait
  // (at most 90 s) until the API answers the whole game, so the page and the direct call agree.
  const today = isoDay(Date.now())
  const settled = async () => {
    const d = await daily(base, { from: today, to: today })
    return (
      d.series.signups?.[0] === 5 &&
      d.series.active?.[0] === 5 &&
      d.series.submits?.[0] === 5 &&
      d.series.sessions?.[0] === 2
    )
  }
  const deadline = Date.now() + 90_000
  while (!(await settled()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 1000))
  t.ok(await settled(), "today's rollup holds the five sign-ups, active players, submits and two sessions")

  addOperator(server.env, 'ada', 'owner')

  t.test('overview, light then dark: exact totals, every chart drawn with the API numbers, the CSV', async (t) => {
    const { context, page, problems } = await openPage(browser, 'light')
    t.teardown(() => context.close())
    await signIn(page, base, 'ada')
    // An owner lands on the games list: the overview is one link away.
    await page.getByRole('link', { name: 'Overview', exact: true }).click()
    for (const chart of CHARTS) await drawn(page, chart)
    // A fresh open of the overview (the chart chunk from the cache): the time until every chart is drawn.
    const started = Date.now()
    await page.reload()
    for (const chart of CHARTS) await drawn(page, chart)
    const ms = Date.now() - started
    t.comment(`the overview drew its four charts ${ms} ms after a reload`)
    t.ok(ms < 8000, 'the overview draws within seconds on this loaded machine')

    const counts = (await adminApi(base, 'GET', '/analytics/counts')).body
    t.equal(counts.players, 5)
    t.equal(await page.locator('[data-count="players"] .value').textContent(), String(counts.players), 'exact players')
    t.equal(await page.locator('[data-count="entries"] .value').textContent(), String(counts.entries), 'exact entries')
    t.notMatch(await page.locator('main').textContent(), /\d\+/, 'no capped "100+" count')

    const thirty = range(30)
    const api = await daily(base, { ...thirty, metrics: CHARTS.join(',') })
    t.equal(api.days.length, 30)
    for (const chart of CHARTS) {
      const figure = page.locator(`[data-chart="${chart}"]`)
      t.equal(
        await figure.getAttribute('data-values'),
        asAttribute(api.series[chart]),
        `${chart}: the drawn series is the API's`,
      )
      // The text alternative: one table row per day, today's value last.
      const rows = await figure.locator('.chart-data tbody tr').allTextContents()
      t.equal(rows.length, 30, `${chart}: a table row per day`)
      const last = api.series[chart][29]
      const shown = last === null ? '—' : chart === 'crashFreeRate' ? `${(last * 100).toFixed(2)} %` : String(last)
      t.equal(rows[29], `${today}${shown}`, `${chart}: today's row says ${shown}`)
    }
    t.equal(api.series.crashFreeRate[29], 0.5, 'one of two sessions crashed today')
    t.match(await page.locator('[data-chart="active"] .chart-summary').textContent(), /^Total 5 over 30 days/)
    // For a screen reader: a figure named by its title, described by its summary line.
    const figure = page.getByRole('figure', { name: 'Active players', exact: true })
    t.match(
      await figure.evaluate((el) => {
        const described = el.getAttribute('aria-describedby') ?? ''
        return el.ownerDocument.getElementById(described)?.textContent ?? ''
      }),
      /^Total 5 over 30 days/,
      'the chart is a named figure described by its summary',
    )
    t.match(await page.locator('[data-chart="crashFreeRate"] .chart-summary').textContent(), /latest 50\.00 % on /)
    t.ok((await linePixels(page, 'active', LIGHT_ACCENT)) > 0, 'the active series is drawn in the light accent')
    t.ok((await linePixels(page, 'submits', LIGHT_ACCENT)) > 0, 'the submits series too')

    // ---- retention: today's cohort of five, its days still ahead ----
    const retention = (await adminApi(base, 'GET', `/analytics/retention?${new URLSearchParams(thirty)}`)).body
    const cohort = retention.cohorts.find((c: { date: string }) => c.date === today)
    t.match(cohort, { size: 5, d1: null, d7: null, d30: null })
    const row = page.locator(`tr[data-cohort="${today}"]`)
    t.equal(await row.locator('td').first().textContent(), '5', 'the cohort size')
    t.equal(await row.locator('td.heat').count(), 3)

    // ---- the CSV: fetched with the session and Accept: text/csv, saved as a file ----
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download CSV of active players' }).click(),
    ])
    t.equal(download.suggestedFilename(), `active-${thirty.from}-${thirty.to}.csv`)
    const csv = await adminText(
      base,
      `/analytics/daily?${new URLSearchParams({ ...thirty, metrics: 'active' })}`,
      'text/csv',
    )
    t.match(csv.type, /^text\/csv/)
    t.equal(readFileSync(await download.path(), 'utf8'), csv.text, 'the file is the API CSV')

    // ---- the range switch: 7 days ----
    await page.getByRole('button', { name: '7 days' }).click()
    const seven = await daily(base, { ...range(7), metrics: 'signups' })
    await page.locator(`[data-chart="signups"][data-values="${asAttribute(seven.series.signups)}"]`).waitFor()
    t.equal(await page.locator('[data-chart="signups"] .chart-data tbody tr').count(), 7, 'seven days')
    await page.screenshot({ path: join(SHOTS, 'analytics-overview-light.png'), fullPage: true })

    // ---- dark: the operator's theme switch redraws every chart in the dark accent ----
    await page.getByRole('button', { name: 'Theme: system' }).click()
    await page.getByRole('button', { name: 'Theme: light' }).click()
    await page.getByRole('button', { name: 'Theme: dark' }).waitFor()
    for (const chart of CHARTS) await drawn(page, chart)
    let dark = 0
    for (let i = 0; i < 50 && dark === 0; i++) {
      dark = await linePixels(page, 'active', DARK_ACCENT)
      if (dark === 0) await page.waitForTimeout(100)
    }
    t.ok(dark > 0, 'drawn in the dark accent')
    t.equal(await linePixels(page, 'active', LIGHT_ACCENT), 0, 'and no longer in the light one')
    t.equal(
      await page.locator('[data-chart="active"]').getAttribute('data-values'),
      asAttribute((await daily(base, { ...range(7), metrics: 'active' })).series.active),
      'the same numbers',
    )
    await page.screenshot({ path: join(SHOTS, 'analytics-overview-dark.png'), fullPage: true })
    t.same(problems, [], 'no CSP violation, no script error')
  })

  t.test('390 px wide: no sideways scroll, the menu folds, charts fit', async (t) => {
    const { context, page, problems } = await openPage(browser, 'dark', { width: 390, height: 844 })
    t.teardown(() => context.close())
    await signIn(page, base, 'ada', true)
    await page.goto(`${base}/console/#/`)
    for (const chart of CHARTS) await drawn(page, chart)
    const overflow = () =>
      page.evaluate(() => {
        const { document, innerWidth } = globalThis as any
        return (document.documentElement.scrollWidth as number) - (innerWidth as number)
      })
    t.equal(await overflow(), 0, 'the overview does not scroll sideways')
    t.notOk(await page.getByRole('link', { name: 'Players', exact: true }).isVisible(), 'the menu is folded')
    const widest = await page.evaluate(() => {
      const { document } = globalThis as any
      return Math.max(
        ...[...document.querySelectorAll('canvas')].map((c: any) => c.getBoundingClientRect().right as number),
      )
    })
    t.ok(widest <= 390, `every canvas ends inside the screen (${widest})`)
    t.ok((await linePixels(page, 'active', DARK_ACCENT)) > 0, 'drawn in the dark accent at 390 px')
    await page.screenshot({ path: join(SHOTS, 'analytics-overview-390.png'), fullPage: true })

    await page.getByRole('button', { name: 'Menu' }).click()
    const links = page.getByRole('navigation', { name: 'Console' }).getByRole('link')
    const boxes = await links.evaluateAll((els) => els.map((el) => el.getBoundingClientRect().toJSON()))
    t.ok(boxes.length >= 13, 'every page is in the menu')
    t.ok(
      boxes.every((b, i) => b.left === boxes[0].left && (i === 0 || b.top > boxes[i - 1].top)),
      'one link a row, in one column (no wrapping)',
    )
    t.equal(await overflow(), 0, 'the open menu does not scroll sideways')
    await page.screenshot({ path: join(SHOTS, 'analytics-menu-390.png') })
    await page.getByRole('link', { name: 'Crashes', exact: true }).click()
    await page.getByRole('heading', { name: 'Crashes' }).waitFor()
    t.notOk(await page.getByRole('link', { name: 'Players', exact: true }).isVisible(), 'the menu folds after a pick')
    await drawn(page, 'crashFreeRate')
    t.equal(await overflow(), 0, 'the crashes page does not scroll sideways')
    t.same(problems, [], 'no CSP violation, no script error')
  })

  t.test('crashes per version, a board spread, a player summary, the pickers, the row menu', async (t) => {
    const { context, page, problems } = await openPage(browser, 'light')
    t.teardown(() => context.close())
    await signIn(page, base, 'ada')
    const thirty = range(30)

    // ---- crashes: the version picker narrows the crash-free rate ----
    await page.goto(`${base}/console/#/crashes`)
    await drawn(page, 'crashFreeRate')
    await page.getByLabel('App version').selectOption('1.4.2')
    const narrowed = await daily(base, { ...thirty, appVersion: '1.4.2', metrics: 'crashFreeRate,sessions,crashes' })
    t.equal(narrowed.series.crashFreeRate[29], 0, '1.4.2 crashed in its one session')
    await page
      .locator(`[data-chart="crashFreeRate"][data-values="${asAttribute(narrowed.series.crashFreeRate)}"]`)
      .waitFor()
    t.equal(
      await page.locator('[data-chart="crashes"]').getAttribute('data-values'),
      asAttribute(narrowed.series.crashes),
    )

    // ---- a board: the histogram and the submits are the API's ----
    await page.goto(`${base}/console/#/leaderboards/cup`)
    await drawn(page, 'histogram')
    await drawn(page, 'submits')
    const histogram = (await adminApi(base, 'GET', '/leaderboards/cup/histogram?buckets=20')).body
    t.equal(
      histogram.buckets.reduce((sum: number, b: { count: number }) => sum + b.count, 0),
      5,
      'five scores spread over the buckets',
    )
    t.equal(
      await page.locator('[data-chart="histogram"]').getAttribute('data-values'),
      histogram.buckets.map((b: { count: number }) => b.count).join(','),
      'the drawn buckets are the API buckets',
    )
    t.match(
      await page.locator('[data-chart="histogram"] .chart-summary').textContent(),
      /^5 scores .* from 10 to 1,000/,
    )
    const submits = await daily(base, { ...thirty, leaderboardKey: 'cup', metrics: 'submits' })
    t.equal(
      await page.locator('[data-chart="submits"]').getAttribute('data-values'),
      asAttribute(submits.series.submits),
    )

    // ---- the row menu: remove an entry, confirmed ----
    await page.getByRole('button', { name: 'Actions for tove' }).click()
    await page.getByRole('menuitem', { name: 'Remove entry' }).click()
    await page.getByRole('menuitem', { name: 'Confirm remove' }).click()
    await page.getByRole('status').filter({ hasText: 'Entry removed' }).waitFor()
    const entries = (await adminApi(base, 'GET', '/leaderboards/cup/entries')).body.items as Array<{ username: string }>
    t.same(
      entries.map((e) => e.username),
      ['sami', 'rosa', 'quinn', 'pia'],
      "tove's entry is gone",
    )

    // ---- a player's summary: platform and version from the crash session; tabs ----
    const quinn = players[1]
    await page.goto(`${base}/console/#/players/${quinn.id}`)
    const summary = page.getByRole('region', { name: 'Summary' })
    await summary.getByText('1.4.2').waitFor()
    t.match(await summary.textContent(), /Platformandroid/, 'the platform of the latest game session')
    t.match(await summary.textContent(), /Game sessions1, 1 crashed/)
    t.match(await summary.textContent(), /Crashes1/)
    t.equal(await page.getByRole('tab').count(), 5, 'five tabs instead of one long page')

    // ---- the cosmetics picker: type part of a name, pick, grant ----
    await adminApi(base, 'PUT', '/cosmetics/hat-red', { type: 'avatar', name: 'Red hat', locked: true })
    await adminApi(base, 'PUT', '/cosmetics/hat-blue', { type: 'avatar', name: 'Blue hat', locked: true })
    await page.getByRole('tab', { name: 'Items' }).click()
    await page.getByRole('combobox', { name: 'Cosmetic' }).fill('red')
    // The catalog loads with the tab: the option shows once it is there.
    await page.getByRole('option', { name: /hat-red/ }).waitFor()
    // The picker's list only: the header's game switcher has options of its own.
    t.equal(
      await page.locator('#main').getByRole('listbox').getByRole('option').count(),
      1,
      'one cosmetic matches "red"',
    )
    await page.getByRole('option', { name: /hat-red/ }).click()
    await page.getByRole('form', { name: 'Grant cosmetics' }).getByRole('button', { name: 'Grant' }).click()
    await page.getByRole('status').filter({ hasText: 'Granted' }).waitFor()
    t.same((await adminApi(base, 'GET', `/users/${quinn.id}/unlocks`)).body.unlocks, ['hat-red'], 'granted')
    t.same(problems, [], 'no CSP violation, no script error')
  })
})
