// What the analytics routes answer, read from the rollups (a primary-key range per series) and, for
// the totals, from COUNTs over indexes through each owning feature's service.
import type { Db } from '../../db/types.js'
import { badRequest } from '../../platform/core/errors.js'
import { playerTotals } from '../users/service.js'
import { boardTotals } from '../leaderboard/service.js'
import { saveTotal } from '../cloud-save/service.js'
import { giftCodeTotal } from '../gift-codes/service.js'
import { openCrashGroups } from '../crash-reporting/service.js'
import { pendingReviews } from '../validated-actions/service.js'
import { emailsQueued } from '../email-sending/service.js'
import { feedbackTotal } from '../user-feedback/service.js'
import {
  DAILY_METRICS,
  type CountsResponse,
  type DailyMetric,
  type DailyQuery,
  type DailyResponse,
  type RetentionResponse,
} from './schemas.js'
import { dateOf, dayOf } from './days.js'
import { RETENTION_OFFSETS } from './rollup.js'

/** The metrics a `metrics` query value names, in the order given; 400 naming the allowed ones for any other. */
export function parseMetrics(text: string | undefined): DailyMetric[] {
  if (text === undefined || text.trim() === '') return [...DAILY_METRICS]
  const names = [...new Set(text.split(',').map((name) => name.trim()))].filter((name) => name !== '')
  const unknown = names.filter((name) => !(DAILY_METRICS as readonly string[]).includes(name))
  if (unknown.length > 0) {
    throw badRequest(
      `querystring/metrics: unknown metric ${unknown.map((n) => `'${n}'`).join(', ')}; allowed: ${DAILY_METRICS.join(', ')}`,
      '/metrics',
    )
  }
  return names as DailyMetric[]
}

type Key = { metric: string; dimension: string }

/** The stored series (metric, dimension) one answered metric is made of. */
function sourcesOf(metric: DailyMetric, query: Pick<DailyQuery, 'appVersion' | 'leaderboardKey'>): Key[] {
  const version = query.appVersion
  const crash = (name: string): Key =>
    version === undefined ? { metric: name, dimension: '' } : { metric: `${name}@version`, dimension: version }
  switch (metric) {
    case 'sessions':
      return [crash('sessions')]
    case 'crashes':
      return [crash('crashes')]
    case 'crashFreeRate':
      return [crash('sessions'), crash('crashedSessions')]
    case 'submits':
      return [
        query.leaderboardKey === undefined
          ? { metric: 'submits', dimension: '' }
          : { metric: 'submits@board', dimension: query.leaderboardKey },
      ]
    default:
      return [{ metric, dimension: '' }]
  }
}

/** Stored values of the given series over [from, to], by `metric|dimension`, one number per day (0 when absent). */
async function readSeries(db: Db, keys: Key[], from: number, to: number): Promise<Map<string, number[]>> {
  const series = new Map<string, number[]>()
  for (const key of keys) series.set(`${key.metric}|${key.dimension}`, new Array(to - from + 1).fill(0))
  if (keys.length === 0) return series
  const rows = await db
    .selectFrom('analytics_daily')
    .select(['metric', 'dimension', 'day', 'value'])
    .where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([
            eb('metric', '=', k.metric),
            eb('dimension', '=', k.dimension),
            eb('day', '>=', from),
            eb('day', '<=', to),
          ]),
        ),
      ),
    )
    .execute()
  for (const row of rows) {
    const values = series.get(`${row.metric}|${row.dimension}`)
    if (values) values[Number(row.day) - from] = Number(row.value)
  }
  return series
}

/** The metrics `appVersion` narrows. */
const VERSION_METRICS: readonly DailyMetric[] = ['sessions', 'crashes', 'crashFreeRate']
/** Per day, the sums of the versions the rollup did not keep: a day with any holds no row for those. */
const FOLDED: Key[] = [
  { metric: 'sessions@other', dimension: '' },
  { metric: 'crashes@other', dimension: '' },
]

/** One series per metric over a range of days, zero-filled so every day has a value. */
export async function dailySeries(
  db: Db,
  metrics: DailyMetric[],
  range: { from: number; to: number },
  query: Pick<DailyQuery, 'appVersion' | 'leaderboardKey'>,
): Promise<DailyResponse> {
  const { from, to } = range
  const narrowed = query.appVersion !== undefined && metrics.some((m) => VERSION_METRICS.includes(m))
  const keys = new Map<string, Key>()
  const wanted = metrics.flatMap((m) => sourcesOf(m, query))
  if (narrowed) wanted.push(...sourcesOf('crashFreeRate', query), ...sourcesOf('crashes', query), ...FOLDED)
  for (const key of wanted) keys.set(`${key.metric}|${key.dimension}`, key)
  const stored = await readSeries(db, [...keys.values()], from, to)
  const get = (key: Key) => stored.get(`${key.metric}|${key.dimension}`)!
  // A version has rows on a day when it was among the day's kept versions. Without rows its numbers
  // are 0 when the day kept every version (nothing under @other), and unknown (null) otherwise.
  let known = (_i: number) => true
  if (narrowed) {
    const [sessions, crashes] = [get(sourcesOf('sessions', query)[0]!), get(sourcesOf('crashes', query)[0]!)]
    const [otherSessions, otherCrashes] = FOLDED.map(get) as [number[], number[]]
    known = (i) => sessions[i]! > 0 || crashes[i]! > 0 || (otherSessions[i] === 0 && otherCrashes[i] === 0)
  }
  const series: DailyResponse['series'] = {}
  for (const metric of metrics) {
    const sources = sourcesOf(metric, query)
    const unknown = (i: number) => VERSION_METRICS.includes(metric) && !known(i)
    if (metric === 'crashFreeRate') {
      const [sessions, crashed] = [get(sources[0]!), get(sources[1]!)]
      series[metric] = sessions.map((s, i) => (s === 0 || unknown(i) ? null : (s - crashed[i]!) / s))
    } else {
      series[metric] = get(sources[0]!).map((v, i) => (unknown(i) ? null : v))
    }
  }
  const days = Array.from({ length: to - from + 1 }, (_, i) => dateOf(from + i))
  return { from: dateOf(from), to: dateOf(to), days, series }
}

/**
 * Cohorts by sign-up day: for the players who signed up on `date`, the share active N days later.
 * Null while that day is still ahead (today counts as reached: its share grows until midnight), and
 * for a day nobody signed up on.
 */
export async function retention(db: Db, range: { from: number; to: number }, now: number): Promise<RetentionResponse> {
  const { from, to } = range
  const today = dayOf(now)
  const keys: Key[] = [{ metric: 'signups', dimension: '' }]
  const last = Math.max(...RETENTION_OFFSETS)
  for (const n of RETENTION_OFFSETS) keys.push({ metric: `retained${n}`, dimension: '' })
  const stored = await readSeries(db, keys, from, to + last)
  const signups = stored.get('signups|')!
  const share = (cohort: number, n: number) => {
    const size = signups[cohort - from]!
    if (cohort + n > today || size === 0) return null
    return stored.get(`retained${n}|`)![cohort + n - from]! / size
  }
  const cohorts = []
  for (let day = from; day <= to; day++) {
    cohorts.push({
      date: dateOf(day),
      size: signups[day - from]!,
      d1: share(day, 1),
      d7: share(day, 7),
      d30: share(day, 30),
    })
  }
  return { cohorts }
}

/** Exact totals, each a COUNT over an index (or a primary key) of its owner's table. */
export async function counts(db: Db, now: number): Promise<CountsResponse> {
  const [players, boards, active, saves, giftCodes, openGroups, reviews, queued, feedback] = await Promise.all([
    playerTotals(db),
    boardTotals(db, now),
    db
      .selectFrom('player_activity')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('day', '=', dayOf(now))
      .executeTakeFirst(),
    saveTotal(db),
    giftCodeTotal(db),
    openCrashGroups(db),
    pendingReviews(db),
    emailsQueued(db),
    feedbackTotal(db),
  ])
  return {
    players: players.players,
    playersByKind: { anonymous: players.anonymous, email: players.email, apple: players.apple, google: players.google },
    bannedPlayers: players.banned,
    activeToday: Number(active?.n ?? 0),
    boards: boards.boards,
    entries: boards.entries,
    saves,
    giftCodes,
    openCrashGroups: openGroups,
    pendingReviews: reviews,
    emailsQueued: queued,
    feedback,
  }
}
