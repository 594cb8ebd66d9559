import { CompiledQuery, type DatabaseConnection, type Kysely, type QueryResult, type RawBuilder } from 'kysely'
import { decodeResult, encodeResult } from './step-results.js'

// One run of one migration, statement by statement, through the step journal where the engine needs
// one. Why and how: migration-steps.ts.

/** The step journal's table: one row per statement run of a migration not yet recorded as applied. */
export const STEPS_TABLE = 'migration_steps'

/** Where to read what to do when a migration cannot go on. */
export const RECOVERY_DOC = 'docs/troubleshooting.md#a-migration-that-stopped-half-way'

/** What the migration journal needs to know of an engine, so step-run.ts names none. */
export interface JournalEngine {
  /** The column type of a statement's recorded answer (a read's rows can be long). */
  resultType: RawBuilder<unknown> | 'text'
  /** The error says the statement's change is already in the database (so re-running it is refused). */
  alreadyApplied(error: unknown): boolean
}

/** A statement of a migration, as a test hears of it (test/db/migrations-killed.test.ts kills the process at one). */
export interface StepEvent {
  migration: string
  step: number
  sql: string
  /**
   * `applied`: the statement has run (a DDL statement has committed; an INSERT/UPDATE/DELETE's
   * transaction is still open). `recorded`: its journal row is committed (engines with a journal only).
   */
  phase: 'applied' | 'recorded'
}

/** For tests only: called at each statement a migration runs (not at those it skips as recorded). */
export type StepHook = (event: StepEvent) => void | Promise<void>

/** A statement of a migration failed: which one, why, and what the operator can do. */
export class MigrationStepError extends Error {
  constructor(
    readonly migration: string,
    readonly step: number,
    readonly statement: string,
    cause: unknown,
    advice: string,
  ) {
    super(`statement ${step} (${shorten(statement)}): ${messageOf(cause)}. ${advice}`, { cause })
  }
}

const messageOf = (error: unknown) => String((error as Error | null)?.message ?? error).replace(/\.$/, '')
const shorten = (text: string) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat
}
const quoted = (text: string) => `'${text.replace(/'/g, "''")}'`

interface Recorded {
  statement: string
  result: string | null
  done: boolean
}

/** One run of one migration's `up`: its statements numbered, run or answered from the journal. */
export class StepRun {
  private step = 0
  private recorded = new Map<number, Recorded>()
  /** The one step whose "already done" error means applied (the one a crash may have left unrecorded). */
  private resumeAt: number | null = null

  constructor(
    private readonly db: Kysely<any>,
    private readonly connection: DatabaseConnection,
    private readonly migration: string,
    private readonly engine: JournalEngine | null,
    private readonly hook: StepHook | undefined,
  ) {}

  private send(query: CompiledQuery): Promise<QueryResult<any>> {
    return this.connection.executeQuery(query)
  }

  async open(): Promise<void> {
    if (!this.engine) return
    const rows = await this.send(
      this.db
        .selectFrom(STEPS_TABLE)
        .select(['step', 'statement', 'result', 'done_at'])
        .where('migration', '=', this.migration)
        .compile(),
    )
    for (const row of rows.rows) {
      this.recorded.set(Number(row.step), { statement: row.statement, result: row.result, done: row.done_at !== null })
    }
    if (this.recorded.size === 0) {
      // Step 0: this migration has begun. Without it a crash before the first statement's row could
      // not be told from a first run.
      await this.send(this.insertRow(0, '', null).compile())
      return
    }
    let next = 1
    while (this.recorded.get(next)?.done) next++
    if (!this.recorded.has(next)) this.resumeAt = next
  }

  private insertRow(step: number, statement: string, result: QueryResult<unknown> | null, done = true) {
    return this.db.insertInto(STEPS_TABLE).values({
      migration: this.migration,
      step,
      statement,
      result: result && encodeResult(result),
      done_at: done ? Date.now() : null,
    })
  }

  private deleteRow(step: number) {
    return this.db.deleteFrom(STEPS_TABLE).where('migration', '=', this.migration).where('step', '=', step)
  }

  private async notify(step: number, sql: string, phase: StepEvent['phase']) {
    await this.hook?.({ migration: this.migration, step, sql, phase })
  }

  async execute(query: CompiledQuery): Promise<QueryResult<any>> {
    const step = ++this.step
    const kept = this.recorded.get(step)
    if (kept?.done) {
      if (kept.statement !== query.sql) throw this.diverged(step, kept.statement, query.sql)
      return kept.result === null ? { rows: [] } : decodeResult(kept.result)
    }
    if (!this.engine) {
      const result = await this.send(query).catch((error: unknown) => {
        throw new MigrationStepError(
          this.migration,
          step,
          query.sql,
          error,
          `The migration was rolled back whole (on PostgreSQL, with the others this run applied: they run in one transaction), so the database is as it was before it. Fix the cause and start again (${RECOVERY_DOC})`,
        )
      })
      await this.notify(step, query.sql, 'applied')
      return result
    }
    const kind = kindOf(query)
    return kind === 'write' ? this.write(step, query, kept !== undefined) : this.other(step, query, kind, kept)
  }

  /** An INSERT/UPDATE/DELETE: the statement and its row in one transaction. */
  private async write(step: number, query: CompiledQuery, failedBefore: boolean): Promise<QueryResult<any>> {
    await this.send(CompiledQuery.raw('begin'))
    let result: QueryResult<any>
    try {
      result = await this.send(query)
      await this.notify(step, query.sql, 'applied')
      if (failedBefore) await this.send(this.deleteRow(step).compile())
      await this.send(this.insertRow(step, query.sql, result).compile())
      await this.send(CompiledQuery.raw('commit'))
    } catch (error) {
      await this.send(CompiledQuery.raw('rollback')).catch(() => {})
      throw await this.failed(step, query.sql, 'write', error, failedBefore)
    }
    await this.notify(step, query.sql, 'recorded')
    return result
  }

  /** DDL (commits by itself, before its row) and reads (recorded with their rows). */
  private async other(
    step: number,
    query: CompiledQuery,
    kind: Exclude<Kind, 'write'>,
    kept: Recorded | undefined,
  ): Promise<QueryResult<any>> {
    let result: QueryResult<any>
    try {
      result = await this.send(query)
    } catch (error) {
      if (kind === 'read' || step !== this.resumeAt || !this.engine!.alreadyApplied(error)) {
        throw await this.failed(step, query.sql, kind, error, kept !== undefined)
      }
      // Applied by the run that stopped between this statement and its row.
      result = { rows: [] }
    }
    await this.notify(step, query.sql, 'applied')
    if (kept) await this.send(this.deleteRow(step).compile())
    await this.send(this.insertRow(step, query.sql, result).compile())
    await this.notify(step, query.sql, 'recorded')
    return result
  }

  /** Records the failure (so that a later run does not take its error for "already done") and explains it. */
  private async failed(step: number, sql: string, kind: Kind, error: unknown, failedBefore: boolean): Promise<Error> {
    try {
      if (!failedBefore) await this.send(this.insertRow(step, sql, null, false).compile())
    } catch {
      // The connection is gone (the cause says why): the next run treats the statement as possibly applied.
    }
    const row = `migration = ${quoted(this.migration)} AND step = ${step}`
    // The way out of a schema change found made already; a read or a write is never skipped that way.
    const done =
      kind === 'ddl' && this.engine!.alreadyApplied(error)
        ? 'If its change is in the database already (made by hand, or by a run of an older Outpost that ' +
          `stopped in this migration), record it as done and start again: UPDATE ${STEPS_TABLE} SET done_at = 1 WHERE ${row}. `
        : 'Fix the cause and start again: the migration resumes at this statement. '
    return new MigrationStepError(
      this.migration,
      step,
      sql,
      error,
      `The statements before it are applied and recorded in ${STEPS_TABLE}. ${done}` +
        `If the database cannot be brought there, restore the backup taken before the upgrade (${RECOVERY_DOC})`,
    )
  }

  private diverged(step: number, recorded: string, now: string): Error {
    return new MigrationStepError(
      this.migration,
      step,
      now,
      new Error(`an earlier run that stopped in this migration ran another statement there: ${shorten(recorded)}`),
      'The migration changed between the two runs (another version of Outpost): finish it with the version ' +
        `that began it, or restore the backup taken before the upgrade (${RECOVERY_DOC})`,
    )
  }
}

/** INSERT/UPDATE/DELETE (transactional on InnoDB), a read, or DDL (anything else). */
type Kind = 'write' | 'read' | 'ddl'

function kindOf(query: CompiledQuery): Kind {
  const kind = query.query.kind
  if (kind === 'InsertQueryNode' || kind === 'UpdateQueryNode' || kind === 'DeleteQueryNode') return 'write'
  if (kind === 'MergeQueryNode') return 'write'
  if (kind === 'SelectQueryNode') return 'read'
  if (kind !== 'RawNode') return 'ddl'
  if (/^\s*(insert|update|delete|replace)\b/i.test(query.sql)) return 'write'
  return /^\s*(select|with|show|explain|describe)\b/i.test(query.sql) ? 'read' : 'ddl'
}
