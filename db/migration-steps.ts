import {
  CompiledQuery,
  Kysely,
  MysqlAdapter,
  SqliteAdapter,
  sql,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type Migration,
} from 'kysely'
import { StepRun, STEPS_TABLE, type JournalEngine, type StepHook } from './step-run.js'

export { MigrationStepError, RECOVERY_DOC, STEPS_TABLE, type StepEvent, type StepHook } from './step-run.js'

/**
 * The step journal: what makes a migration resumable after a crash at any of its statements.
 *
 * Kysely runs each migration, then records it in `kysely_migration`. Where the engine has
 * transactional DDL (SQLite; PostgreSQL) a migration runs in a transaction (`atomicityOf`), so a
 * crash or a failure undoes it whole and the next start runs it again from its start: those engines
 * need no journal. MySQL commits every DDL statement on its own, so a crash in a migration of several
 * statements leaves it half applied; run again from its start, its first statement fails ("Duplicate
 * column name") and so does every start after.
 *
 * On such an engine each statement a migration runs is numbered (1, 2, …) and, once it has run, a row
 * (migration, step, its SQL, what it returned) goes into `migration_steps`. A run that finds rows for
 * the migration resumes it: a recorded statement is not run again, and answers what it answered the
 * first time. Reads are recorded too, so a migration that decides on what it read decides the same
 * way when resumed, even if a later statement of it dropped what it read. A statement's SQL must be
 * the one recorded (parameters may differ, a timestamp say): otherwise the migration's code changed
 * between the two runs and the journal cannot be trusted to line up.
 *
 * - An INSERT/UPDATE/DELETE and its row commit in one transaction: either both are there or neither.
 * - A DDL statement commits by itself, before its row can. A crash between the two leaves one
 *   statement applied but not recorded: the first one past the recorded ones. Run again, that one
 *   statement may be refused as already done (duplicate column, index or table; nothing to drop):
 *   that error means applied for that statement only, and only when an earlier run began the
 *   migration (step 0, written before its first statement) and did not report that statement as
 *   failed (a failure is recorded as a row without `done_at`). Anywhere else the error stands.
 *
 * The rows of a migration are deleted once Kysely has recorded it (at the end of a run, or of the
 * next one if this one is killed first): in between they are still needed.
 *
 * To bring an engine without transactional DDL (another MySQL-like server): add it to ENGINES below,
 * with the errors that say "already done". An engine with transactional DDL needs no journal: for
 * PostgreSQL Kysely's adapter says `supportsTransactionalDdl` and the migrator runs the migrations in
 * a transaction (see `atomicityOf`).
 */
/**
 * MySQL/MariaDB errors of a DDL statement whose change is there already: a table that exists (1050),
 * an unknown table to drop (1051), a duplicate column (1060) or key name (1061), an unknown column to
 * rename (1054), a second primary key (1068), nothing to drop (1091), a table renamed away (1146), a
 * duplicate foreign key (1022, 1826), a stored routine that exists (1304) or, to drop, does not (1305).
 */
const MYSQL_ALREADY_APPLIED = new Set([1022, 1050, 1051, 1054, 1060, 1061, 1068, 1091, 1146, 1304, 1305, 1826])

const ENGINES: Array<[abstract new () => DialectAdapter, JournalEngine]> = [
  [
    MysqlAdapter,
    {
      resultType: sql`longtext`,
      alreadyApplied: (error) => MYSQL_ALREADY_APPLIED.has(Number((error as { errno?: unknown } | null)?.errno)),
    },
  ],
]

/**
 * How a migration is made all-or-nothing on an engine:
 * - `transaction`: Kysely runs the migrations in a transaction (its adapter's `supportsTransactionalDdl`,
 *   PostgreSQL's): a crash or a failure undoes them.
 * - `savepoint`: SQLite. Kysely's adapter says no transactional DDL, but SQLite has it, and the run is
 *   one transaction already (db/index.ts takes the migration lock with BEGIN IMMEDIATE): a crash undoes
 *   the whole run. Each migration is a savepoint in it, so that a failed one is undone whole before the
 *   lock's COMMIT keeps the ones before it.
 * - a journal: every other engine (MySQL), per ENGINES.
 */
type Atomicity = 'transaction' | 'savepoint' | JournalEngine

function atomicityOf(adapter: DialectAdapter): Atomicity {
  if (adapter.supportsTransactionalDdl) return 'transaction'
  if (adapter instanceof SqliteAdapter) return 'savepoint'
  const found = ENGINES.find(([kind]) => adapter instanceof kind)
  if (!found)
    throw new Error(`no migration step journal for ${adapter.constructor.name}: add one in db/migration-steps.ts`)
  return found[1]
}

/** The journal of an engine, or null where a migration is undone whole by a crash or a failure. */
function journalEngine(adapter: DialectAdapter): JournalEngine | null {
  const atomicity = atomicityOf(adapter)
  return typeof atomicity === 'string' ? null : atomicity
}

/** The table the runner keeps, made before the migrations run (not a migration: it must exist for them). */
export async function ensureStepsTable(db: Kysely<any>): Promise<void> {
  const engine = journalEngine(db.getExecutor().adapter)
  if (!engine) return
  await db.schema
    .createTable(STEPS_TABLE)
    .ifNotExists()
    .addColumn('migration', 'varchar(255)', (c) => c.notNull())
    .addColumn('step', 'integer', (c) => c.notNull())
    .addColumn('statement', 'text', (c) => c.notNull())
    .addColumn('result', engine.resultType)
    // Null: the statement failed, was reported, and is not applied.
    .addColumn('done_at', 'bigint')
    .addPrimaryKeyConstraint(`${STEPS_TABLE}_pk`, ['migration', 'step'])
    .execute()
}

/** Drops the rows of the migrations Kysely has recorded as applied: they are never needed again. */
export async function forgetAppliedSteps(db: Kysely<any>): Promise<void> {
  if (!journalEngine(db.getExecutor().adapter)) return
  await db.deleteFrom(STEPS_TABLE).where('migration', 'in', db.selectFrom('kysely_migration').select('name')).execute()
}

/** The migrations, each `up` run statement by statement through the journal (and the hook). */
export function journaled(migrations: Record<string, Migration>, hook?: StepHook): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(migrations).map(([name, migration]) => [
      name,
      { ...migration, up: (db: Kysely<any>) => runSteps(db, name, migration.up, hook) },
    ]),
  )
}

async function runSteps(
  db: Kysely<any>,
  name: string,
  up: (db: Kysely<any>) => Promise<void>,
  hook: StepHook | undefined,
): Promise<void> {
  const executor = db.getExecutor()
  const atomicity = atomicityOf(executor.adapter)
  const engine = typeof atomicity === 'string' ? null : atomicity
  // The migrator's db holds one connection (and, on MySQL, the migration lock on it): the
  // migration's statements go through that connection, counted.
  await executor.provideConnection(async (connection) => {
    const run = new StepRun(db, connection, name, engine, hook)
    await run.open()
    const stepDb = new Kysely<any>({
      dialect: {
        createAdapter: () => executor.adapter,
        createDriver: () => new StepDriver(run),
        createQueryCompiler: () => ({ compileQuery: (node, queryId) => executor.compileQuery(node, queryId) }),
        createIntrospector: () => {
          throw new Error('a migration cannot introspect the database: its reads must be plain queries')
        },
      },
      plugins: [...executor.plugins],
    })
    const savepoint = (verb: string) => connection.executeQuery(CompiledQuery.raw(`${verb} migration_step`))
    if (atomicity === 'savepoint') await savepoint('savepoint')
    try {
      await up(stepDb)
    } catch (error) {
      if (atomicity === 'savepoint') await savepoint('rollback to')
      throw error
    } finally {
      if (atomicity === 'savepoint') await savepoint('release')
      await stepDb.destroy()
    }
  })
}

/** Hands the migration's Kysely the counted connection; a migration opens no transaction of its own. */
class StepDriver implements Driver {
  constructor(private readonly run: StepRun) {}
  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return {
      executeQuery: (query) => this.run.execute(query),
      streamQuery: () => {
        throw new Error('a migration cannot stream a query: read with execute()')
      },
    }
  }
  async beginTransaction(): Promise<void> {
    throw new Error('a migration opens no transaction: the runner runs each statement in its own')
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}
