import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { CrashGroup, CrashReport } from './tables.js'
import { affected, isUniqueViolation } from '../../db/dialect.js'
import { COPIED, EXISTS, refused, type ImportOutcome } from '../../db/import-outcome.js'
import { guarded } from '../../db/savepoint.js'
import { badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { userNames } from '../users/service.js'
import type {
  CrashGroupListQuery,
  CrashGroupUser,
  CrashGroupUpdate,
  CrashGroupView,
  CrashOccurrence,
  CrashReportBody,
  CrashSessionBody,
  CrashStats,
} from './schemas.js'
import { compareVersions, versionKey } from './versions.js'

/** The operator's side of crash reporting: groups, their occurrences, status, and crash-free rates. */
import { createReport, groupKey, registerSession } from './ingest.js'
export { createReport, registerSession }

const RECENT_OCCURRENCES = 20
const STATS_VERSIONS = 100

const newestVersionFirst = (a: string, b: string) => compareVersions(b, a)

/** Affected users and versions of the given groups, counted from their distinct-key tables. */
async function groupExtras(db: Db, groupIds: string[]) {
  const users = new Map<string, number>()
  const versions = new Map<string, string[]>()
  if (groupIds.length === 0) return { users, versions }
  const userCounts = await db
    .selectFrom('crash_group_users')
    .select(['group_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('group_id', 'in', groupIds)
    .groupBy('group_id')
    .execute()
  for (const row of userCounts) users.set(row.group_id, Number(row.n))
  const versionRows = await db
    .selectFrom('crash_group_versions')
    .select(['group_id', 'app_version'])
    .where('group_id', 'in', groupIds)
    .execute()
  for (const row of versionRows) {
    const list = versions.get(row.group_id)
    if (list) list.push(row.app_version)
    else versions.set(row.group_id, [row.app_version])
  }
  for (const list of versions.values()) list.sort(newestVersionFirst)
  return { users, versions }
}

function toGroupView(row: CrashGroup, extras: Awaited<ReturnType<typeof groupExtras>>): CrashGroupView {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    type: row.type,
    message: row.message,
    status: row.status as CrashGroupView['status'],
    resolvedInVersion: row.resolved_in_version,
    occurrences: Number(row.occurrences),
    affectedUsers: extras.users.get(row.id) ?? 0,
    affectedVersions: extras.versions.get(row.id) ?? [],
    firstSeen: toIso(Number(row.first_seen)),
    lastSeen: toIso(Number(row.last_seen)),
    lastAppVersion: row.last_app_version,
  }
}

/** The console's crash groups, by last seen or by count, filtered by status. */
export async function listGroups(db: Db, query: CrashGroupListQuery) {
  const column = query.sort === 'count' ? 'occurrences' : 'last_seen'
  let select = db.selectFrom('crash_groups').selectAll()
  if (query.status) select = select.where('status', '=', query.status)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: query.cursor,
    limit: query.limit,
    keys: [column, 'id'],
  })
  const extras = await groupExtras(
    db,
    items.map((r) => r.id),
  )
  return { items: items.map((row) => toGroupView(row, extras)), nextCursor }
}

async function findGroup(db: Db, groupId: string) {
  const row = await db.selectFrom('crash_groups').selectAll().where('id', '=', groupId).executeTakeFirst()
  if (!row) throw notFound('NOT_FOUND', 'Crash group not found')
  return row
}

function toOccurrence(row: CrashReport): CrashOccurrence {
  return {
    id: row.id,
    type: row.type,
    message: row.message,
    stackTrace: row.stack_trace,
    fingerprint: row.fingerprint,
    appVersion: row.app_version,
    sdkVersion: row.sdk_version,
    platform: row.platform,
    os: row.os,
    deviceModel: row.device_model,
    deviceMemoryMb: row.device_memory_mb === null ? null : Number(row.device_memory_mb),
    sessionId: row.session_id,
    userId: row.user_id,
    linkedUserId: row.linked_user_id,
    breadcrumbs: JSON.parse(row.breadcrumbs),
    customKeys: JSON.parse(row.custom_keys),
    truncated: row.truncated === 1,
    createdAt: toIso(Number(row.created_at)),
  }
}

/** One group with its versions and latest reports, for the console's group page. */
export async function getGroup(db: Db, groupId: string) {
  const row = await findGroup(db, groupId)
  const extras = await groupExtras(db, [row.id])
  const versions = await db.selectFrom('crash_group_versions').selectAll().where('group_id', '=', row.id).execute()
  const recent = await db
    .selectFrom('crash_reports')
    .selectAll()
    .where('group_id', '=', row.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(RECENT_OCCURRENCES)
    .execute()
  return {
    ...toGroupView(row, extras),
    versions: versions
      .sort((a, b) => newestVersionFirst(a.app_version, b.app_version))
      .map((v) => ({
        appVersion: v.app_version,
        occurrences: Number(v.occurrences),
        firstSeen: toIso(Number(v.first_seen)),
        lastSeen: toIso(Number(v.last_seen)),
      })),
    recentOccurrences: recent.map(toOccurrence),
  }
}

/**
 * The players a group has hit, the latest first: one row per distinct userId sent, with the user it
 * names (and that user's name) when the user exists.
 */
export async function listGroupUsers(db: Db, groupId: string, query: { cursor?: string; limit: number }) {
  await findGroup(db, groupId)
  const { items, nextCursor } = await keysetPage(
    db.selectFrom('crash_group_users').selectAll().where('group_id', '=', groupId),
    { cursor: query.cursor, limit: query.limit, keys: ['last_seen', 'user_key'] },
  )
  const names = await userNames(
    db,
    items.flatMap((r) => (r.linked_user_id ? [r.linked_user_id] : [])),
  )
  return {
    items: items.map((r): CrashGroupUser => ({
      userKey: r.user_key,
      userId: r.linked_user_id,
      username: r.linked_user_id ? (names.get(r.linked_user_id) ?? null) : null,
      firstSeen: toIso(Number(r.first_seen)),
      lastSeen: toIso(Number(r.last_seen)),
    })),
    nextCursor,
  }
}

/** An operator's triage of a group (its status, the version that fixed it), which later reports may undo (REGRESSED). */
export async function updateGroup(
  db: Db,
  groupId: string,
  body: CrashGroupUpdate,
  now: number,
): Promise<CrashGroupView> {
  const version = body.resolvedInVersion ?? null
  if (version !== null && body.status !== 'RESOLVED') {
    throw badRequest('body/resolvedInVersion is only taken with status RESOLVED', '/resolvedInVersion')
  }
  const result = await db
    .updateTable('crash_groups')
    .set({
      status: body.status,
      resolved_in_version: version,
      resolved_version_key: version === null ? null : versionKey(version),
      updated_at: now,
    })
    .where('id', '=', groupId)
    .executeTakeFirst()
  if (affected(result) === 0) throw notFound('NOT_FOUND', 'Crash group not found')
  const row = await findGroup(db, groupId)
  return toGroupView(row, await groupExtras(db, [row.id]))
}

const rate = (sessions: number, crashed: number) => (sessions === 0 ? null : (sessions - crashed) / sessions)

/** Sessions, crashed sessions and the crash-free session rate, overall or for one version, and per version. */
export async function crashStats(db: Db, appVersion: string | undefined): Promise<CrashStats> {
  let select = db
    .selectFrom('crash_sessions')
    .select([
      'app_version',
      (eb) => eb.fn.countAll<number>().as('sessions'),
      (eb) => eb.fn.sum<number | string | null>(sql`${sql.ref('crashed')}`).as('crashed'),
    ])
    .groupBy('app_version')
  if (appVersion !== undefined) select = select.where('app_version', '=', appVersion)
  const rows = (await select.execute()).map((r) => ({
    appVersion: r.app_version,
    sessions: Number(r.sessions),
    crashedSessions: Number(r.crashed ?? 0),
  }))
  const sessions = rows.reduce((n, r) => n + r.sessions, 0)
  const crashedSessions = rows.reduce((n, r) => n + r.crashedSessions, 0)
  return {
    appVersion: appVersion ?? null,
    sessions,
    crashedSessions,
    crashFreeRate: rate(sessions, crashedSessions),
    versions: rows
      .sort((a, b) => newestVersionFirst(a.appVersion, b.appVersion))
      .slice(0, STATS_VERSIONS)
      .map((r) => ({ ...r, crashFreeRate: rate(r.sessions, r.crashedSessions) })),
  }
}

// ---- data in and out --------------------------------------------------------------------------

/** A crash session brought over from another server: the session id's key makes a second import a no-op. */
export async function importSession(db: Db, body: CrashSessionBody, createdAt: number): Promise<ImportOutcome> {
  return (await registerSession(db, body, createdAt)) ? COPIED : EXISTS
}

/**
 * A crash report brought over with its id, counted into its group like any report. The report's
 * primary key refuses a second import, and the whole transaction (counters included) rolls back with it.
 */
export async function importReport(
  db: Db,
  id: string,
  body: CrashReportBody,
  createdAt: number,
): Promise<ImportOutcome> {
  try {
    // A dry run imports inside a transaction, which the refusal must leave usable (`guarded`).
    await guarded(db, () => createReport(db, body, createdAt, { id: id.toLowerCase() }))
    return COPIED
  } catch (error) {
    if (isUniqueViolation(error)) return EXISTS
    throw error
  }
}

/**
 * The status an operator gave a group on the other server, applied to the imported group while it is
 * still OPEN here (so a second import, or a status set here since, is left alone).
 */
export async function importGroupStatus(
  db: Db,
  fingerprint: string,
  status: string,
  resolvedInVersion: string | null,
): Promise<ImportOutcome> {
  if (!['RESOLVED', 'IGNORED', 'REGRESSED'].includes(status)) return refused(`status "${status}" is not known here`)
  const result = await db
    .updateTable('crash_groups')
    .set({
      status,
      resolved_in_version: status === 'RESOLVED' ? resolvedInVersion : null,
      resolved_version_key: status === 'RESOLVED' && resolvedInVersion ? versionKey(resolvedInVersion) : null,
    })
    .where('fingerprint', '=', groupKey(fingerprint))
    .where('status', '=', 'OPEN')
    .executeTakeFirst()
  return affected(result) === 1 ? COPIED : EXISTS
}

/** The player's crash sessions and reports (those linked to their account), for their data export. */
export async function exportForUser(db: Db, userId: string) {
  const [sessions, reports] = await Promise.all([
    db
      .selectFrom('crash_sessions')
      .selectAll()
      .where('linked_user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('session_id')
      .execute(),
    db
      .selectFrom('crash_reports')
      .selectAll()
      .where('linked_user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ])
  return {
    sessions: sessions.map((s) => ({
      sessionId: s.session_id,
      appVersion: s.app_version,
      platform: s.platform,
      crashed: s.crashed === 1,
      createdAt: toIso(Number(s.created_at)),
    })),
    reports: reports.map((r) => ({
      id: r.id,
      groupId: r.group_id,
      sessionId: r.session_id,
      type: r.type,
      message: r.message,
      stackTrace: r.stack_trace,
      fingerprint: r.fingerprint,
      appVersion: r.app_version,
      sdkVersion: r.sdk_version,
      platform: r.platform,
      os: r.os,
      deviceModel: r.device_model,
      deviceMemoryMb: r.device_memory_mb === null ? null : Number(r.device_memory_mb),
      breadcrumbs: JSON.parse(r.breadcrumbs) as Array<{ timestamp: string; type: string; message: string }>,
      customKeys: JSON.parse(r.custom_keys) as Record<string, string>,
      createdAt: toIso(Number(r.created_at)),
    })),
  }
}
export * from './stats.js'
