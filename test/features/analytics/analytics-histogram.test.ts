import t, { type Test } from 'tap'
import { buildTestApp, eachDialect, TestClock, type TestApp } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'

/**
 * A board's score histogram shows the distribution whatever a few players send: the outliers beyond
 * Tukey's fences get an end bucket, the rest share equal widths. Checked on both sort orders, on
 * negative scores, a board of one value and the extreme bucket counts; every answer is a partition of
 * the period's scores (contiguous, increasing, counts summing to the entries, exact min and max).
 */

interface Bucket {
  from: number
  to: number
  count: number
}
interface Histogram {
  boardKey: string
  period: string
  min: number | null
  max: number | null
  buckets: Bucket[]
}

/** Players who each submit `scores[i]` to every board in `boards`, twenty at a time. */
async function play(ctx: TestApp, boards: string[], scores: number[]) {
  for (let i = 0; i < scores.length; i += 20) {
    await Promise.all(
      scores.slice(i, i + 20).map(async (score) => {
        const user = await createUser(ctx)
        for (const key of boards) {
          const res = await submit(ctx, key, user.userId, score)
          if (res.statusCode !== 200) throw new Error(`submit: ${res.statusCode} ${res.body}`)
        }
      }),
    )
  }
}

async function histogram(t: Test, ctx: TestApp, key: string, buckets?: number): Promise<Histogram> {
  const query = buckets === undefined ? '' : `?buckets=${buckets}`
  const res = await ctx.admin({ method: 'GET', url: `/leaderboards/${key}/histogram${query}` })
  t.equal(res.statusCode, 200, res.body)
  return res.json()
}

/** The buckets partition [min, max] in increasing order and hold every score once. */
function partitions(t: Test, h: Histogram, scores: number[], most: number, label: string) {
  const [min, max] = [Math.min(...scores), Math.max(...scores)]
  t.equal(h.min, min, `${label}: exact min`)
  t.equal(h.max, max, `${label}: exact max`)
  t.ok(h.buckets.length >= 1 && h.buckets.length <= most, `${label}: ${h.buckets.length} buckets of at most ${most}`)
  t.equal(h.buckets[0]!.from, min, `${label}: the first bucket starts at min`)
  t.equal(h.buckets[h.buckets.length - 1]!.to, max, `${label}: the last ends at max`)
  t.ok(
    h.buckets.every((b, i) => b.from <= b.to && (i === 0 || b.from === h.buckets[i - 1]!.to + 1)),
    `${label}: increasing and contiguous`,
  )
  const counted = h.buckets.map((b) => scores.filter((s) => s >= b.from && s <= b.to).length)
  t.same(
    h.buckets.map((b) => b.count),
    counted,
    `${label}: each count is the scores in its bucket`,
  )
  t.equal(
    h.buckets.reduce((n, b) => n + b.count, 0),
    scores.length,
    `${label}: counts sum to the entries`,
  )
}

eachDialect(t, async (t, dialect) => {
  t.test('two scores of 1,000,000 among 301 from 0 to 1,000: an end bucket for them', async (t) => {
    const ctx = await buildTestApp(t, dialect, { clock: new TestClock(Date.parse('2026-11-22T08:00:00.000Z')) })
    await createBoard(ctx, 'high', { sortOrder: 'desc' })
    await createBoard(ctx, 'low', { sortOrder: 'asc' })
    const scores = [...Array.from({ length: 301 }, (_, i) => Math.round((i * 1000) / 300)), 1_000_000, 1_000_000]
    await play(ctx, ['high', 'low'], scores)
    for (const key of ['high', 'low']) {
      const h = await histogram(t, ctx, key)
      partitions(t, h, scores, 20, key)
      t.equal(h.buckets.length, 20, `${key}: the 20 buckets asked for`)
      t.same(h.buckets[19], { from: 1001, to: 1_000_000, count: 2 }, `${key}: the two outliers in the last bucket`)
      const most = Math.max(...h.buckets.map((b) => b.count))
      t.ok(most <= 0.2 * scores.length, `${key}: no bucket holds more than 20 % (the fullest: ${most})`)
      t.ok(h.buckets[0]!.count <= 0.1 * scores.length, `${key}: the first bucket holds ${h.buckets[0]!.count}`)
      const one = await histogram(t, ctx, key, 1)
      t.same(one.buckets, [{ from: 0, to: 1_000_000, count: 303 }], `${key}: one bucket holds everything`)
      const two = await histogram(t, ctx, key, 2)
      t.same(
        two.buckets,
        [
          { from: 0, to: 1000, count: 301 },
          { from: 1001, to: 1_000_000, count: 2 },
        ],
        `${key}: two buckets, the outliers in the second`,
      )
      partitions(t, await histogram(t, ctx, key, 100), scores, 100, `${key}, 100 buckets`)
    }
  })

  t.test('negative scores, low outliers, one value, small boards', async (t) => {
    const ctx = await buildTestApp(t, dialect, { clock: new TestClock(Date.parse('2026-11-22T08:00:00.000Z')) })
    for (const key of ['neg', 'same', 'few']) await createBoard(ctx, key, { sortOrder: 'asc', minScore: -2_000_000 })
    await createBoard(ctx, 'few-desc', { sortOrder: 'desc', minScore: -1000 })
    const empty = await histogram(t, ctx, 'neg')
    t.same(empty, { boardKey: 'neg', period: empty.period, min: null, max: null, buckets: [] }, 'an empty period')

    // Lap times in negative numbers with one far below: the low side gets the end bucket.
    const negative = [...Array.from({ length: 60 }, (_, i) => -500 + i * 8), -1_500_000]
    await play(ctx, ['neg'], negative)
    for (const buckets of [undefined, 3, 100]) {
      const h = await histogram(t, ctx, 'neg', buckets)
      partitions(t, h, negative, buckets ?? 20, `neg, ${buckets ?? 'default'}`)
      t.same(h.buckets[0], { from: -1_500_000, to: -501, count: 1 }, 'the low outlier alone in the first bucket')
    }

    await play(ctx, ['same'], [42, 42, 42, 42, 42])
    for (const buckets of [1, 20, 100]) {
      const h = await histogram(t, ctx, 'same', buckets)
      t.same(h, { boardKey: 'same', period: h.period, min: 42, max: 42, buckets: [{ from: 42, to: 42, count: 5 }] })
    }

    // Twelve scores: 1.5 interquartile ranges around 1..7 leave 0..9 inside, -20 and 100 outside.
    const few = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, -20]
    await play(ctx, ['few', 'few-desc'], few)
    for (const key of ['few', 'few-desc']) {
      t.same(
        (await histogram(t, ctx, key, 4)).buckets,
        [
          { from: -20, to: -1, count: 1 },
          { from: 0, to: 4, count: 5 },
          { from: 5, to: 9, count: 5 },
          { from: 10, to: 100, count: 1 },
        ],
        `${key}: an end bucket on each side`,
      )
      const fine = await histogram(t, ctx, key, 100)
      partitions(t, fine, few, 100, `${key}, 100 buckets`)
      t.equal(fine.buckets.length, 12, '0..9 take ten buckets of one value, the outliers one each')
    }
  })
})
