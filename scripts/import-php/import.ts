// Moves a horizOn Simple Server (the PHP server) database into Outpost: php-source.ts reads it,
// php-rows.ts holds each row to the API's checks, and this file writes what passes. Every row is written
// through the service of the Outpost feature that owns its table, and each of those writes is keyed (the
// row's own id, or the owner's unique key), so a second run finds everything there and copies nothing twice.
import type { Db } from '../../db/types.js'
import { isDatabaseUnavailable, isStatementRefused } from '../../db/dialect.js'
import { guarded } from '../../db/savepoint.js'
import { EventHub } from '../../platform/core/events.js'
import { withoutNul } from '../../platform/http/json-body.js'
import type { ImportOutcome } from '../../db/import-outcome.js'
import { importAnonymousUser } from '../../features/users/service.js'
import { importScore } from '../../features/leaderboard/service.js'
import { importSave } from '../../features/cloud-save/service.js'
import { importConfig } from '../../features/remote-config/service.js'
import { importNews } from '../../features/news/service.js'
import { importGiftCode, importRedemption } from '../../features/gift-codes/service.js'
import { importFeedback } from '../../features/user-feedback/service.js'
import { importLog } from '../../features/user-logs/service.js'
import { importGroupStatus, importReport, importSession } from '../../features/crash-reporting/service.js'
import type { CrashReportBody } from '../../features/crash-reporting/schemas.js'
import type { PhpSource, Row } from './source.js'
import { crashReportBody, phpTime, RowChecker, str } from './rows.js'

export { isMysqlUrl, openMysqlSource, openSqliteSource, type PhpSource } from './source.js'
export { phpTime } from './rows.js'

/** One table of the PHP server and how each of its rows is written into Outpost. */
interface Step {
  table: string
  /** A column that orders the rows stably for paging (the primary key). */
  orderBy: string
  /** Rows refused by this step are named by this column in the report. */
  key: (row: Row) => string
  write: (db: Db, row: Row) => Promise<ImportOutcome>
}

/** What the PHP data does not say and the import must be told. */
export interface ImportSettings {
  /** The board PHP scores go to (the PHP server has one global board). */
  boardKey: string
  cloudSaveMaxBytes: number
  /** The time given to rows whose time the PHP server did not store. */
  now: number
}

const refusedTime = (column: string, value: unknown): ImportOutcome => ({
  status: 'refused',
  reason: `${column} "${String(value)}" is not a time`,
})

function steps(settings: ImportSettings): Step[] {
  const events = new EventHub()
  const timeOr = (value: unknown) => phpTime(value) ?? settings.now
  return [
    {
      table: 'users',
      orderBy: 'id',
      key: (r) => String(r.id),
      write: (db, r) =>
        importAnonymousUser(db, {
          id: String(r.id),
          name: String(r.display_name ?? ''),
          anonymousToken: String(r.anonymous_token),
          createdAt: timeOr(r.created_at),
        }),
    },
    {
      table: 'leaderboard',
      orderBy: 'id',
      key: (r) => `user ${String(r.user_id)}`,
      write: async (db, r) => {
        const reachedAt = phpTime(r.updated_at)
        if (reachedAt === undefined) return refusedTime('updated_at', r.updated_at)
        const written = await importScore(db, events, {
          boardKey: settings.boardKey,
          userId: String(r.user_id).toLowerCase(),
          score: Number(r.score),
          reachedAt,
        })
        return { status: written ? 'copied' : 'exists' }
      },
    },
    {
      table: 'cloud_saves',
      orderBy: 'user_id',
      key: (r) => `user ${String(r.user_id)}`,
      write: (db, r) =>
        r.data === null
          ? Promise.resolve({ status: 'refused', reason: 'the save is empty (null)' })
          : importSave(db, {
              userId: String(r.user_id).toLowerCase(),
              text: String(r.data),
              updatedAt: timeOr(r.updated_at),
              maxBytes: settings.cloudSaveMaxBytes,
            }),
    },
    {
      table: 'remote_configs',
      orderBy: 'config_key',
      key: (r) => String(r.config_key),
      write: (db, r) => importConfig(db, String(r.config_key), str(r.config_value), settings.now),
    },
    {
      table: 'news',
      orderBy: 'id',
      key: (r) => String(r.id),
      write: async (db, r) => {
        const releaseDate = phpTime(r.published_at)
        if (releaseDate === undefined) return refusedTime('published_at', r.published_at)
        return importNews(db, {
          id: String(r.id),
          title: String(r.title),
          message: String(r.message),
          languageCode: String(r.language_code),
          releaseDate,
          createdAt: timeOr(r.created_at),
        })
      },
    },
    {
      table: 'gift_codes',
      orderBy: 'id',
      key: (r) => String(r.code),
      write: async (db, r) => {
        const expiresAt = r.expires_at === null ? null : phpTime(r.expires_at)
        if (expiresAt === undefined) return refusedTime('expires_at', r.expires_at)
        return importGiftCode(db, {
          id: String(r.id),
          code: String(r.code),
          // The PHP server answers reward_data as giftData; reward_type is never shown to a client.
          giftData: str(r.reward_data) ?? '',
          maxRedemptions: Number(r.max_redemptions),
          redemptionCount: Number(r.current_redemptions),
          expiresAt,
          createdAt: timeOr(r.created_at),
        })
      },
    },
    {
      table: 'gift_code_redemptions',
      orderBy: 'id',
      key: (r) => `code ${String(r.gift_code_id)} by user ${String(r.user_id)}`,
      write: (db, r) =>
        importRedemption(db, {
          giftCodeId: String(r.gift_code_id),
          userId: String(r.user_id),
          redeemedAt: timeOr(r.redeemed_at),
        }),
    },
    {
      table: 'user_feedback',
      orderBy: 'id',
      key: (r) => String(r.id),
      write: (db, r) =>
        importFeedback(db, {
          id: String(r.id),
          userId: String(r.user_id),
          title: String(r.title),
          message: String(r.message),
          category: str(r.category),
          email: str(r.email),
          deviceInfo: str(r.device_info),
          createdAt: timeOr(r.created_at),
        }),
    },
    {
      table: 'user_logs',
      orderBy: 'id',
      key: (r) => String(r.id),
      write: (db, r) =>
        importLog(db, {
          id: String(r.id),
          userId: String(r.user_id),
          message: String(r.message),
          type: String(r.type),
          errorCode: str(r.error_code),
          createdAt: timeOr(r.created_at),
        }),
    },
    {
      table: 'crash_sessions',
      orderBy: 'id',
      key: (r) => String(r.session_id),
      write: (db, r) =>
        importSession(
          db,
          {
            sessionId: String(r.session_id),
            appVersion: String(r.app_version),
            platform: String(r.platform),
            userId: str(r.user_id) ?? undefined,
          },
          timeOr(r.created_at),
        ),
    },
    {
      table: 'crash_reports',
      orderBy: 'id',
      key: (r) => String(r.id),
      // A NUL inside the JSON text of breadcrumbs or custom keys is taken out too, as the API does.
      write: (db, r) =>
        importReport(db, String(r.id), withoutNul(crashReportBody(r)) as CrashReportBody, timeOr(r.created_at)),
    },
    {
      // Groups are rebuilt from their reports above; what only the operator decided (a status) is carried over.
      table: 'crash_groups',
      orderBy: 'id',
      key: (r) => String(r.fingerprint),
      write: (db, r) =>
        String(r.status) === 'OPEN'
          ? Promise.resolve({ status: 'exists' })
          : importGroupStatus(db, String(r.fingerprint), String(r.status), str(r.resolved_in_version)),
    },
  ]
}

/** The PHP tables that hold nothing to move: the per-IP rate-limit counters. */
const NOT_DATA = new Set(['rate_limits'])

/** The source's tables, once it is known to be a PHP server's database (else a clear error). */
export async function assertPhpSchema(source: PhpSource): Promise<Set<string>> {
  const present = await source.tables()
  if (!present.has('users') || !present.has('leaderboard')) {
    throw new Error(`${source.description} is not a horizOn Simple Server database (no users or leaderboard table)`)
  }
  return present
}

/** Rows copied into one table, for the report. */
export interface TableCount {
  table: string
  rows: number
  copied: number
  existing: number
  refused: number
}

/** A row left behind and why, so the operator can fix it at the source and run again. */
export interface RefusedRow {
  table: string
  row: string
  reason: string
}

/** What an import did, table by table, and what it refused. */
export interface ImportReport {
  tables: TableCount[]
  refused: RefusedRow[]
  /** Tables of the source that this import does not read (named so that nothing is skipped silently). */
  ignoredTables: string[]
}

/** Where the import tells of its progress; the command draws it, tests ignore it. */
export interface Progress {
  start(table: string, total: number): void
  tick(done: number): void
  end(): void
}

const PAGE = 500

/**
 * Copies every table the PHP server keeps into `db`, row by row, in an order where every row's parent
 * (its user, its gift code) comes first. Each row first passes the API's own checks (php-rows.ts). A row
 * refused there or by a service is counted and listed, never dropped silently; a database failure stops the run (a second run resumes where it stopped, copying nothing twice).
 */
export async function importPhp(
  source: PhpSource,
  db: Db,
  settings: ImportSettings,
  progress?: Progress,
): Promise<ImportReport> {
  const present = await assertPhpSchema(source)
  const report: ImportReport = { tables: [], refused: [], ignoredTables: [] }
  const plan = steps(settings)
  const checker = new RowChecker()
  const known = new Set([...plan.map((s) => s.table), ...NOT_DATA])
  report.ignoredTables = [...present].filter((t) => !known.has(t) && !t.startsWith('sqlite_')).sort()
  for (const step of plan) {
    if (!present.has(step.table)) continue
    const total = await source.count(step.table)
    const count: TableCount = { table: step.table, rows: total, copied: 0, existing: 0, refused: 0 }
    progress?.start(step.table, total)
    let done = 0
    for (let offset = 0; offset < total; offset += PAGE) {
      for (const row of await source.page(step.table, step.orderBy, PAGE, offset)) {
        const checked = checker.check(step.table, row)
        let outcome: ImportOutcome
        try {
          // A refused row leaves the dry run's transaction usable (guarded: a savepoint where needed).
          outcome =
            'reason' in checked
              ? { status: 'refused', reason: checked.reason }
              : await guarded(db, () => step.write(db, checked.row))
        } catch (error) {
          // A row the owner refuses as invalid (a score outside the board's bounds, a value too long
          // for its column): listed with the owner's words. Only lost connections stop the run.
          const e = error as { statusCode?: number; message?: string }
          if (isDatabaseUnavailable(error) || (e.statusCode === undefined && !isStatementRefused(error))) throw error
          outcome = { status: 'refused', reason: e.message ?? String(error) }
        }
        if (step.table === 'users') checker.userOutcome(String(row.id), outcome.status !== 'refused')
        if (outcome.status === 'copied') count.copied++
        else if (outcome.status === 'exists') count.existing++
        else {
          count.refused++
          report.refused.push({ table: step.table, row: step.key(row), reason: outcome.reason })
        }
        progress?.tick(++done)
      }
    }
    progress?.end()
    report.tables.push(count)
  }
  return report
}

/** The report as the operator reads it: one line per table, then every refused row with its reason. */
export function formatReport(report: ImportReport, dryRun: boolean): string {
  const lines: string[] = []
  const verb = dryRun ? 'would copy' : 'copied'
  const width = Math.max(...report.tables.map((t) => t.table.length), 5)
  lines.push(`${'table'.padEnd(width)}  ${'rows'.padStart(7)}  ${verb.padStart(10)}  ${'already'.padStart(7)}  refused`)
  for (const t of report.tables) {
    lines.push(
      `${t.table.padEnd(width)}  ${String(t.rows).padStart(7)}  ${String(t.copied).padStart(10)}  ${String(t.existing).padStart(7)}  ${String(t.refused).padStart(7)}`,
    )
  }
  if (report.refused.length > 0) {
    lines.push('', `Rows not copied (${report.refused.length}):`)
    for (const r of report.refused) lines.push(`  ${r.table} ${r.row}: ${r.reason}`)
  }
  if (report.ignoredTables.length > 0) {
    lines.push('', `Tables not read (not part of the PHP server's schema): ${report.ignoredTables.join(', ')}`)
  }
  lines.push(
    '',
    'Not carried over by design: PHP session tokens (players sign in again with their anonymous token), ' +
      "the rate-limit counters, and the crash groups' counters (rebuilt from the reports).",
  )
  if (dryRun) lines.push('Dry run: nothing was written.')
  return lines.join('\n')
}
