// What analytics reads of crash reporting: sessions, crashed sessions and reports in a span of time,
// in total and for the app versions with the most sessions (index `crash_sessions_created_idx`,
// `crash_reports_created_idx`), and open groups.
import type { Db } from '../../db/types.js'

/** What analytics shows of crashes in a span: how many sessions crashed, out of how many. */
export interface CrashCounts {
  sessions: number
  crashedSessions: number
  reports: number
}

/** The same per app version, to see whether a release made things worse. */
export interface VersionCounts extends CrashCounts {
  appVersion: string
}

/**
 * Sessions registered in [start, end), how many of them crashed and the reports received: in total,
 * for the `keep` app versions with the most sessions (ties by version), and for every other version
 * summed into `other`. Players choose the versions they send: however many there are, the answer holds
 * at most `keep` + 2 rows and the database sends no more (the grouping stays inside the statement).
 * Reports of a version with no session in the span count under `other`.
 */
export async function crashCountsBetween(
  db: Db,
  start: number,
  end: number,
  keep: number,
): Promise<{ total: CrashCounts; versions: VersionCounts[]; other: CrashCounts }> {
  const [sessionTotal, reportTotal, top] = await Promise.all([
    db
      .selectFrom('crash_sessions')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number | string>('crashed').as('c')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .executeTakeFirst(),
    db
      .selectFrom('crash_reports')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .executeTakeFirst(),
    db
      .selectFrom('crash_sessions')
      .select((eb) => ['app_version', eb.fn.countAll<number>().as('n'), eb.fn.sum<number | string>('crashed').as('c')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy('app_version')
      .orderBy('n', 'desc')
      .orderBy('app_version')
      .limit(keep)
      .execute(),
  ])
  const versions: VersionCounts[] = top.map((r) => ({
    appVersion: r.app_version,
    sessions: Number(r.n),
    crashedSessions: Number(r.c ?? 0),
    reports: 0,
  }))
  if (versions.length > 0) {
    const reports = await db
      .selectFrom('crash_reports')
      .select((eb) => ['app_version', eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .where(
        'app_version',
        'in',
        versions.map((v) => v.appVersion),
      )
      .groupBy('app_version')
      .execute()
    const byVersion = new Map(versions.map((v) => [v.appVersion, v]))
    for (const r of reports) {
      const version = byVersion.get(r.app_version)
      if (version) version.reports = Number(r.n)
    }
  }
  const total = {
    sessions: Number(sessionTotal?.n ?? 0),
    crashedSessions: Number(sessionTotal?.c ?? 0),
    reports: Number(reportTotal?.n ?? 0),
  }
  const kept = (field: keyof CrashCounts) => versions.reduce((n, v) => n + v[field], 0)
  const other = {
    sessions: total.sessions - kept('sessions'),
    crashedSessions: total.crashedSessions - kept('crashedSessions'),
    reports: total.reports - kept('reports'),
  }
  return { total, versions, other }
}

/** Crash groups an operator has not resolved or ignored. */
export async function openCrashGroups(db: Db): Promise<number> {
  const row = await db
    .selectFrom('crash_groups')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['OPEN', 'REGRESSED'])
    .executeTakeFirst()
  return Number(row?.n ?? 0)
}
