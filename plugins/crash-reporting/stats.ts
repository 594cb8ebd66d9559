// What analytics reads of crash reporting: sessions, crashed sessions and reports in a span of time,
// by app version (index `crash_sessions_created_idx`, `crash_reports_created_idx`), and open groups.
import type { Db } from '../../db/types.js'

export interface VersionCounts {
  appVersion: string
  sessions: number
  crashedSessions: number
  reports: number
}

/** Per app version: sessions registered in [start, end), how many of them crashed, and reports received. */
export async function crashCountsBetween(db: Db, start: number, end: number): Promise<VersionCounts[]> {
  const [sessions, reports] = await Promise.all([
    db
      .selectFrom('crash_sessions')
      .select((eb) => ['app_version', eb.fn.countAll<number>().as('n'), eb.fn.sum<number | string>('crashed').as('c')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy('app_version')
      .execute(),
    db
      .selectFrom('crash_reports')
      .select((eb) => ['app_version', eb.fn.countAll<number>().as('n')])
      .where('created_at', '>=', start)
      .where('created_at', '<', end)
      .groupBy('app_version')
      .execute(),
  ])
  const byVersion = new Map<string, VersionCounts>()
  const of = (appVersion: string) => {
    let row = byVersion.get(appVersion)
    if (!row) byVersion.set(appVersion, (row = { appVersion, sessions: 0, crashedSessions: 0, reports: 0 }))
    return row
  }
  for (const r of sessions) {
    const row = of(r.app_version)
    row.sessions = Number(r.n)
    row.crashedSessions = Number(r.c ?? 0)
  }
  for (const r of reports) of(r.app_version).reports = Number(r.n)
  return [...byVersion.values()]
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
