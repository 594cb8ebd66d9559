import { createHash, randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { CrashReportsTable } from './tables.js'
import { flag, forUpdate, isForeignKeyViolation, isUniqueViolation, upsert } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { guarded } from '../../db/savepoint.js'
import { toIso } from '../../platform/core/clock.js'
import type { EventSender } from '../../platform/core/events.js'
import { findUser } from '../users/service.js'
import type { CrashReportBody, CrashReportCreated, CrashSessionBody } from './schemas.js'
import { versionKey } from './versions.js'
import { UUID_TEXT } from '../../platform/schemas/common.js'

/**
 * Ingestion: a report is never refused for its content (only for a missing type, a wrongly typed
 * field or an oversize body, which the route's schema and body limit decide). Over-long fields are
 * shortened and the answer says so. The group's counters, its versions and users, and the session are
 * all written by upserts in one transaction, so concurrent reports of one crash never lose a count.
 */
export const LIMITS = {
  message: 8_192,
  stackTrace: 65_536,
  customKeys: 64,
  breadcrumbs: 100,
  /** Column widths of the short fields (also shortened, not refused). */
  short: 128,
  os: 255,
  deviceModel: 255,
  groupMessage: 500,
} as const

/** Frames of the stack trace that go into a derived fingerprint. */
const FINGERPRINT_FRAMES = 5
const MAX_INT = 2 ** 31 - 1

/** `text` cut to `max` characters (code points, as the schemas count them), and whether it was cut. */
export function clip(text: string, max: number): [string, boolean] {
  if (text.length <= max) return [text, false]
  const points = Array.from(text)
  return points.length <= max ? [text, false] : [points.slice(0, max).join(''), true]
}

/** Missing, null and "" are all "". */
const str = (value: string | null | undefined) => value ?? ''

/**
 * One frame of a stack trace, stripped of what differs between two occurrences of one crash:
 * addresses, line and column numbers, file paths in parentheses, lambda markers and other numbers.
 */
function normalizeFrame(frame: string): string {
  return frame
    .replace(/\(at .*?\)|\(.*?:\d+\)/g, '')
    .replace(/\s+in\s+\S+:\d+.*$/, '')
    .replace(/0x[0-9a-f]+/gi, '0x')
    .replace(/<[^>]*>/g, '<>')
    .replace(/\d+/g, '0')
    .replace(/\s+/g, ' ')
    .trim()
}

/** A fingerprint for a report that brought none: type, message and the top frames, normalized. */
export function deriveFingerprint(type: string, message: string, stackTrace: string): string {
  const frames = stackTrace
    .split(/\r?\n/)
    .map(normalizeFrame)
    .filter((frame) => frame !== '')
    .slice(0, FINGERPRINT_FRAMES)
  const canonical = [type, normalizeFrame(message), ...frames].join('\n')
  return createHash('sha256').update(canonical).digest('hex')
}

/** A client fingerprint too long for the key column is replaced by its hash: two long ones never merge. */
export function groupKey(fingerprint: string): string {
  return fingerprint.length <= LIMITS.short ? fingerprint : createHash('sha256').update(fingerprint).digest('hex')
}

/**
 * The userId as stored: any string the client sent, except that a UUID is lower-cased,
 * so one player spelled in two cases links to the user and counts once among the affected users.
 */
const clientUserId = (value: string | null | undefined) => {
  const text = str(value)
  return UUID_TEXT.test(text) ? text.toLowerCase() : text
}

/** The id of the existing user this userId string names, if any. */
async function linkedUser(db: Db, userId: string): Promise<string | null> {
  if (!UUID_TEXT.test(userId)) return null
  const user = await findUser(db, userId)
  return user?.id ?? null
}

/** A user counts towards "affected users" when the client named one (not "" or the Godot placeholder). */
const userKeyOf = (userId: string) => (userId === '' || userId.toLowerCase() === 'anonymous' ? null : userId)

/**
 * Runs `work` with the linked user; if that user was deleted in between (the foreign key refuses the
 * row), runs it again unlinked rather than lose the report.
 */
async function withLinkedUser<T>(db: Db, userId: string, work: (linked: string | null) => Promise<T>): Promise<T> {
  const linked = await linkedUser(db, userId)
  try {
    // Inside a caller's transaction (an import's dry run), the refusal must leave it usable.
    return await guarded(db, () => work(linked))
  } catch (error) {
    if (linked === null || !isForeignKeyViolation(error)) throw error
    return work(null)
  }
}

/** Registers a session; false when it was already registered (by the SDK or by a report). */
export async function registerSession(db: Db, body: CrashSessionBody, now: number): Promise<boolean> {
  const [userId] = clip(clientUserId(body.userId), LIMITS.short)
  return withLinkedUser(db, userId, async (linked) => {
    try {
      // Inside a caller's transaction (an import's dry run), the refusal must leave it usable.
      await guarded(db, () =>
        db
          .insertInto('crash_sessions')
          .values({
            session_id: clip(body.sessionId, LIMITS.short)[0],
            app_version: clip(str(body.appVersion), LIMITS.short)[0],
            platform: clip(str(body.platform), LIMITS.short)[0],
            user_id: userId,
            linked_user_id: linked,
            crashed: 0,
            created_at: now,
            crashed_at: null,
          })
          .execute(),
      )
      return true
    } catch (error) {
      // The primary key settles concurrent registrations of one session: exactly one insert wins.
      if (isUniqueViolation(error)) return false
      throw error
    }
  })
}

interface Normalized {
  row: Omit<CrashReportsTable, 'id' | 'group_id' | 'linked_user_id' | 'created_at'>
  truncated: boolean
}

function normalizeReport(body: CrashReportBody): Normalized {
  let truncated = false
  const cut = (value: string | null | undefined, max: number) => {
    const [text, wasCut] = clip(str(value), max)
    truncated ||= wasCut
    return text
  }
  const message = cut(body.message, LIMITS.message)
  const stackTrace = cut(body.stackTrace, LIMITS.stackTrace)

  const allCrumbs = body.breadcrumbs ?? []
  if (allCrumbs.length > LIMITS.breadcrumbs) truncated = true
  const breadcrumbs = allCrumbs.slice(-LIMITS.breadcrumbs).map((crumb) => ({
    timestamp: typeof crumb.timestamp === 'number' ? JSON.stringify(crumb.timestamp) : str(crumb.timestamp),
    type: str(crumb.type),
    message: str(crumb.message),
  }))

  const entries = Object.entries(body.customKeys ?? {})
  if (entries.length > LIMITS.customKeys) truncated = true
  const customKeys = Object.fromEntries(
    entries
      .slice(0, LIMITS.customKeys)
      .map(([key, value]) => [key, typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null')]),
  )

  const memory = body.deviceMemoryMb
  const fingerprint = str(body.fingerprint)
  return {
    row: {
      session_id: cut(body.sessionId, LIMITS.short),
      type: body.type,
      message,
      stack_trace: stackTrace,
      fingerprint: groupKey(fingerprint === '' ? deriveFingerprint(body.type, message, stackTrace) : fingerprint),
      app_version: cut(body.appVersion, LIMITS.short),
      sdk_version: cut(body.sdkVersion, LIMITS.short),
      platform: cut(body.platform, LIMITS.short),
      os: cut(body.os, LIMITS.os),
      device_model: cut(body.deviceModel, LIMITS.deviceModel),
      device_memory_mb:
        typeof memory === 'number' && Number.isFinite(memory)
          ? Math.min(Math.max(Math.round(memory), 0), MAX_INT)
          : null,
      user_id: cut(clientUserId(body.userId), LIMITS.short),
      breadcrumbs: JSON.stringify(breadcrumbs),
      custom_keys: JSON.stringify(customKeys),
      truncated: 0,
    },
    truncated,
  }
}

/** `options.id`: the report's id when it comes from elsewhere (an import); a second insert of it is refused whole. */
export async function createReport(
  db: Db,
  body: CrashReportBody,
  now: number,
  options: { id?: string; events?: EventSender } = {},
): Promise<CrashReportCreated> {
  const events = options.events?.raising ? options.events : undefined
  const { row, truncated } = normalizeReport(body)
  // An empty sessionId: the report still counts as one crashed run, under a session of its own.
  const sessionId = row.session_id === '' ? randomUUID() : row.session_id
  const userKey = userKeyOf(row.user_id)
  const reportKey = versionKey(row.app_version)
  const id = options.id ?? randomUUID()

  const groupId = await withLinkedUser(db, row.user_id, (linked) =>
    withTransaction(db, async (trx) => {
      // A resolved group this report may bring back: read again under its row lock, so of concurrent
      // reports exactly one sees it still resolved (the check costs one read only while it is resolved).
      const resolvedBefore =
        events !== undefined &&
        (await groupStatus(trx, row.fingerprint, false)) === 'RESOLVED' &&
        (await groupStatus(trx, row.fingerprint, true)) === 'RESOLVED'
      // The group first: its row lock then orders every other write of concurrent reports of one crash.
      await upsert(
        trx,
        'crash_groups',
        [
          {
            id: randomUUID(),
            fingerprint: row.fingerprint,
            type: row.type,
            message: clip(row.message, LIMITS.groupMessage)[0],
            status: 'OPEN',
            resolved_in_version: null,
            resolved_version_key: null,
            occurrences: 1,
            first_seen: now,
            last_seen: now,
            last_app_version: row.app_version,
            updated_at: now,
          },
        ],
        {
          key: ['fingerprint'],
          // MySQL applies the assignments in order: status reads resolved_version_key before anything changes it.
          set: (stored) => ({
            status: sql`case when ${stored('status')} = 'RESOLVED' and (${stored('resolved_version_key')} is null or ${stored('resolved_version_key')} < ${reportKey}) then 'REGRESSED' else ${stored('status')} end`,
            occurrences: sql`${stored('occurrences')} + 1`,
            last_seen: sql`case when ${stored('last_seen')} < ${now} then ${now} else ${stored('last_seen')} end`,
            last_app_version: sql`${row.app_version}`,
            updated_at: sql`${now}`,
          }),
        },
      )
      const group = await trx
        .selectFrom('crash_groups')
        .select(['id', 'status', 'occurrences', 'type', 'message'])
        .where('fingerprint', '=', row.fingerprint)
        .executeTakeFirstOrThrow()
      // The row lock orders concurrent reports: exactly one of them made the group (occurrences 1).
      const raised = !events
        ? null
        : Number(group.occurrences) === 1
          ? 'crash.group_created'
          : resolvedBefore && group.status === 'REGRESSED'
            ? 'crash.group_regressed'
            : null
      if (raised) {
        await events!.raise(trx, raised, {
          groupId: group.id,
          type: group.type,
          message: group.message,
          appVersion: row.app_version,
          platform: row.platform,
          userId: row.user_id || null,
        })
      }

      await upsert(
        trx,
        'crash_group_versions',
        [{ group_id: group.id, app_version: row.app_version, occurrences: 1, first_seen: now, last_seen: now }],
        {
          key: ['group_id', 'app_version'],
          set: (stored) => ({
            occurrences: sql`${stored('occurrences')} + 1`,
            last_seen: sql`case when ${stored('last_seen')} < ${now} then ${now} else ${stored('last_seen')} end`,
          }),
        },
      )
      if (userKey !== null) {
        await upsert(
          trx,
          'crash_group_users',
          [{ group_id: group.id, user_key: userKey, linked_user_id: linked, first_seen: now, last_seen: now }],
          {
            key: ['group_id', 'user_key'],
            set: (stored) => ({
              last_seen: sql`case when ${stored('last_seen')} < ${now} then ${now} else ${stored('last_seen')} end`,
            }),
          },
        )
      }
      await upsert(
        trx,
        'crash_sessions',
        [
          {
            session_id: sessionId,
            app_version: row.app_version,
            platform: row.platform,
            user_id: row.user_id,
            linked_user_id: linked,
            crashed: 1,
            created_at: now,
            crashed_at: now,
          },
        ],
        {
          key: ['session_id'],
          set: (stored) => ({
            crashed: sql`1`,
            crashed_at: sql`coalesce(${stored('crashed_at')}, ${now})`,
          }),
        },
      )
      await trx
        .insertInto('crash_reports')
        .values({
          ...row,
          id,
          group_id: group.id,
          session_id: sessionId,
          linked_user_id: linked,
          truncated: flag(truncated),
          created_at: now,
        })
        .execute()
      return group.id
    }),
  )
  return { id, groupId, createdAt: toIso(now), truncated }
}

async function groupStatus(trx: Db, fingerprint: string, locking: boolean): Promise<string | undefined> {
  const query = trx.selectFrom('crash_groups').select('status').where('fingerprint', '=', fingerprint)
  return (await (locking ? forUpdate(trx, query) : query).executeTakeFirst())?.status
}
