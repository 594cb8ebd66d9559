import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { Page } from 'playwright-core'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import {
  addOperator,
  adminApi,
  appApi,
  openPage,
  SHOTS,
  signIn,
  signUp,
  startServer,
} from '../helpers/console-server.js'

/**
 * A board's score histogram in a real browser: with outliers far above the rest the chart draws the
 * API's buckets, and the x-axis labels (compact numbers, thinned to the width) never overlap, at
 * 1280 and at 390 px, on the board and on one whose scores reach 1,000,000,000,000.
 */

interface Box {
  text: string
  left: number
  right: number
}

/** The x-axis labels the chart drew, with their boxes, once it has drawn. */
async function axisLabels(page: Page): Promise<Box[]> {
  const plot = page.locator('[data-chart="histogram"] .chart-plot[data-drawn="true"]')
  await plot.waitFor()
  await page.waitForFunction(() => {
    const { document } = globalThis as any
    return document.querySelector('[data-chart="histogram"] .chart-plot')?.dataset.axisLabels !== undefined
  })
  return JSON.parse((await plot.getAttribute('data-axis-labels'))!)
}

t.test('the histogram chart in chromium', { skip: chromiumSkip, timeout: 300_000 }, async (t) => {
  const server = await startServer(t)
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const base = server.base
  await adminApi(base, 'PUT', '/leaderboards/spread', { name: 'Spread', sortOrder: 'desc' })
  await adminApi(base, 'PUT', '/leaderboards/huge', { name: 'Huge', sortOrder: 'desc', maxScore: 1e13 })
  // 60 players from 0 to 1,000, two at 1,000,000; on the huge board their scores times a million.
  const scores = [...Array.from({ length: 60 }, (_, i) => Math.round((i * 1000) / 59)), 1_000_000, 1_000_000]
  for (let i = 0; i < scores.length; i += 10) {
    await Promise.all(
      scores.slice(i, i + 10).map(async (score, j) => {
        const player = await signUp(base, `p${i + j}`)
        for (const [key, value] of [
          ['spread', score],
          ['huge', score * 1_000_003],
        ] as const) {
          const res = await appApi(base, 'POST', `/leaderboards/${key}/submit`, { userId: player.id, score: value })
          if (res.status !== 200) throw new Error(`submit: ${JSON.stringify(res.body)}`)
        }
      }),
    )
  }
  addOperator(server.env, 'ada', 'owner')

  for (const [width, height, narrow] of [
    [1280, 860, false],
    [390, 844, true],
  ] as const) {
    t.test(`${width} px: the API's buckets, labels that never overlap`, async (t) => {
      const { context, page, problems } = await openPage(browser, 'light', { width, height })
      t.teardown(() => context.close())
      await signIn(page, base, 'ada', narrow)
      await page.goto(`${base}/console/#/leaderboards/spread`)
      const api = (await adminApi(base, 'GET', '/leaderboards/spread/histogram?buckets=20')).body
      t.same(api.buckets[api.buckets.length - 1], { from: 1001, to: 1_000_000, count: 2 }, 'the outliers apart')
      const labels = await axisLabels(page)
      t.equal(
        await page.locator('[data-chart="histogram"]').getAttribute('data-values'),
        api.buckets.map((b: { count: number }) => b.count).join(','),
        'the drawn buckets are the API buckets',
      )
      t.ok(labels.length >= 2, `${labels.length} labels drawn: ${labels.map((l) => l.text).join(' | ')}`)
      const compact = /^-?[\d.]+[KMBT]?(–-?[\d.]+[KMBT]?)?$/
      t.ok(
        labels.every((l) => compact.test(l.text)),
        'compact numbers (1K, 1M), never 1,000,000',
      )
      t.equal(labels[labels.length - 1]!.text, '1K–1M', "the outliers' bucket is labelled")
      const overlaps = (boxes: Box[]) => boxes.filter((box, i) => i > 0 && box.left < boxes[i - 1]!.right)
      t.same(overlaps(labels), [], 'no label box overlaps the one before it')
      mkdirSync(SHOTS, { recursive: true })
      await page.locator('[data-chart="histogram"]').screenshot({ path: join(SHOTS, `histogram-${width}.png`) })

      // Scores in the billions: longer labels, so fewer of them, still apart.
      await page.goto(`${base}/console/#/leaderboards/huge`)
      const hugeApi = (await adminApi(base, 'GET', '/leaderboards/huge/histogram?buckets=20')).body
      const hugeValues = hugeApi.buckets.map((b: { count: number }) => b.count).join(',')
      await page.locator(`[data-chart="histogram"][data-values="${hugeValues}"]`).waitFor()
      const huge = await axisLabels(page)
      t.ok(huge.length >= 2, `${huge.length} labels drawn: ${huge.map((l) => l.text).join(' | ')}`)
      t.ok(huge.every((l) => compact.test(l.text)) && /T$/.test(huge[huge.length - 1]!.text), 'up to 1T')
      t.same(overlaps(huge), [], 'no overlap with long labels either')
      await page.locator('[data-chart="histogram"]').screenshot({ path: join(SHOTS, `histogram-huge-${width}.png`) })
      t.same(problems, [], 'no CSP violation, no script error')
    })
  }
})
