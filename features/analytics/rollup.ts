// The daily rollups (analytics_daily), built off the request path by a background job. A day still
// open (today, and yesterday for a short while after midnight, while the last activity marks are
// written) is rebuilt on every run; a past day is built once for good, claimed by the row the build
// writes in `analytics_days` in the same transaction, so one instance builds it and a failed build
// leaves the day to the next run. Submits are not built here: they are counted as they happen
// (activity.ts) and added to their rows. A run's writes are bounded whatever players send: per day at
// most VERSIONS_PER_DAY app versions get rows of their own (the rest are summed under `<metric>@other`),
// and only the rows whose value changed are written.
import type { Db } from '../../db/types.js'
import { affected, insertOrIgnore, upsert } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { firstSignupAt, signupsActiveOn, signupsBetween } from '../users/service.js'
import { crashCountsBetween } from '../crash-reporting/service.js'
import { redemptionsBetween } from '../gift-codes/service.js'
import { feedbackBetween } from '../user-feedback/service.js'
import { emailOutcomesBetween } from '../email-sending/service.js'
import { DAY_MS, dayOf, dayStart } from './days.js'

/** The days after sign-up that retention looks at. */
export const RETENTION_OFFSETS = [1, 7, 30] as const

/**
 * App versions kept per day, those with the most sessions that day: the versions an operator charts.
 * The sessions, crashed sessions and reports of all the others are summed under `<metric>@other`.
 */
export const VERSIONS_PER_DAY = 20

/** The metrics this builder writes (per kept app version under `<metric>@version`, the rest `@other`). */
export const BUILT_METRICS = [
  'signups',
  'active',
  'sessions',
  'crashedSessions',
  'crashes',
  'sessions@version',
  'crashedSessions@version',
  'crashes@version',
  'sessions@other',
  'crashedSessions@other',
  'crashes@other',
  'redemptions',
  'feedback',
  'emailsSent',
  'emailsFailed',
  ...RETENTION_OFFSETS.map((n) => `retained${n}`),
]

/** How long after its end a day is still rebuilt: longer than an activity flush, so none is missed. */
export const OPEN_AFTER_END_MS = 2 * 60_000
/** Past days built per run at most, so a first run on a long history stays short; the next run goes on. */
export const PAST_DAYS_PER_RUN = 31
/** How often the job runs: today's rows are never older than this (plus a run's length). */
export const ROLLUP_EVERY_MS = 30_000

interface Row {
  metric: string
  dimension: string
  day: number
  value: number
}

/** Every rollup row of `day`, read from the source tables (zeros left out: an absent row reads as 0). */
export async function rowsOfDay(db: Db, day: number): Promise<Row[]> {
  const start = dayStart(day)
  const end = start + DAY_MS
  const [signups, active, crashes, redemptions, feedback, emails, ...retained] = await Promise.all([
    signupsBetween(db, start, end),
    activeOn(db, day),
    crashCountsBetween(db, start, end, VERSIONS_PER_DAY),
    redemptionsBetween(db, start, end),
    feedbackBetween(db, start, end),
    emailOutcomesBetween(db, start, end),
    ...RETENTION_OFFSETS.map((n) => signupsActiveOn(db, dayStart(day - n), dayStart(day - n + 1), day)),
  ])
  const rows: Row[] = []
  const add = (metric: string, value: number, dimension = '') => {
    if (value !== 0) rows.push({ metric, dimension, day, value })
  }
  add('signups', signups)
  add('active', active)
  add('sessions', crashes.total.sessions)
  add('crashedSessions', crashes.total.crashedSessions)
  add('crashes', crashes.total.reports)
  for (const v of crashes.versions) {
    add('sessions@version', v.sessions, v.appVersion)
    add('crashedSessions@version', v.crashedSessions, v.appVersion)
    add('crashes@version', v.reports, v.appVersion)
  }
  add('sessions@other', crashes.other.sessions)
  add('crashedSessions@other', crashes.other.crashedSessions)
  add('crashes@other', crashes.other.reports)
  add('redemptions', redemptions)
  add('feedback', feedback)
  add('emailsSent', emails.sent)
  add('emailsFailed', emails.failed)
  RETENTION_OFFSETS.forEach((n, i) => add(`retained${n}`, retained[i]!))
  return rows
}

async function activeOn(db: Db, day: number): Promise<number> {
  const row = await db
    .selectFrom('player_activity')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('day', '=', day)
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}

/**
 * Makes the built rows of `day` those of `rows`: deletes the rows no longer there and writes only the
 * rows that are new or changed (a day where nothing happened since the last run costs one read). With
 * `claim`, only when this call is the first to claim the day for good (false when another build has
 * it); the claim commits with the rows or not at all. The values written are whole values, not
 * increments: two builds of one open day that overlap leave the rows of one of them.
 */
export async function writeDay(db: Db, day: number, rows: Row[], now: number, claim: boolean): Promise<boolean> {
  return inTransaction(db, async (trx) => {
    if (claim) {
      const claimed = await insertOrIgnore(
        trx,
        trx.insertInto('analytics_days').values({ day, built_at: now }),
      ).executeTakeFirst()
      if (affected(claimed) !== 1) return false
    }
    // Read through the (day, metric) index: the day's rows alone, however long the history.
    const stored = await trx
      .selectFrom('analytics_daily')
      .select(['metric', 'dimension', 'value'])
      .where('day', '=', day)
      .where('metric', 'in', BUILT_METRICS)
      .execute()
    const keyOf = (r: { metric: string; dimension: string }) => `${r.metric}\u0000${r.dimension}`
    const fresh = new Map(rows.map((r) => [keyOf(r), r]))
    const unchanged = new Set(stored.filter((s) => fresh.get(keyOf(s))?.value === Number(s.value)).map(keyOf))
    // Rows gone to zero or out of the kept versions: one DELETE per metric, whatever their number.
    const staleMetrics = new Set(stored.filter((s) => !fresh.has(keyOf(s))).map((s) => s.metric))
    for (const metric of staleMetrics) {
      const keptDimensions = rows.filter((r) => r.metric === metric).map((r) => r.dimension)
      let remove = trx.deleteFrom('analytics_daily').where('day', '=', day).where('metric', '=', metric)
      if (keptDimensions.length > 0) remove = remove.where('dimension', 'not in', keptDimensions)
      await remove.execute()
    }
    const changed = rows.filter((r) => !unchanged.has(keyOf(r)))
    if (changed.length > 0) {
      await upsert(trx, 'analytics_daily', changed, { key: ['metric', 'dimension', 'day'], update: ['value'] })
    }
    return true
  })
}

/** The first day anything happened: the oldest player's sign-up (nothing is counted before a player exists). */
async function firstDay(db: Db): Promise<number | null> {
  const first = await firstSignupAt(db)
  return first === null ? null : dayOf(first)
}

/** One run: rebuilds the open days, then builds up to PAST_DAYS_PER_RUN past days not yet built, oldest first. */
export async function runRollup(db: Db, now: number): Promise<{ open: number[]; built: number[] }> {
  const today = dayOf(now)
  const open = now - dayStart(today) < OPEN_AFTER_END_MS ? [today - 1, today] : [today]
  for (const day of open) await writeDay(db, day, await rowsOfDay(db, day), now, false)
  const built: number[] = []
  const first = await firstDay(db)
  const lastPast = open[0]! - 1
  if (first === null || first > lastPast) return { open, built }
  const done = new Set(
    (
      await db
        .selectFrom('analytics_days')
        .select('day')
        .where('day', '>=', first)
        .where('day', '<=', lastPast)
        .execute()
    ).map((r) => Number(r.day)),
  )
  for (let day = first; day <= lastPast && built.length < PAST_DAYS_PER_RUN; day++) {
    if (done.has(day)) continue
    if (await writeDay(db, day, await rowsOfDay(db, day), now, true)) built.push(day)
  }
  return { open, built }
}
