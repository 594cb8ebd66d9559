import { Migrator, type Kysely, type Migration, type MigrationResultSet } from 'kysely'
import { takeMigrationLock, type MigrationLock } from './migration-lock.js'
import {
  ensureStepsTable,
  forgetAppliedSteps,
  journaled,
  MigrationStepError,
  type StepHook,
} from './migration-steps.js'

/** How a migration run may be watched: the hooks tests use to stop a run half way. */
export interface MigrateOptions {
  /** Tests only: called at each statement a migration runs (test/db/migrations-killed.test.ts kills there). */
  onStep?: StepHook
  /**
   * PostgreSQL: the schema of Kysely's own migration tables, a game's (db/games.ts). Named, because
   * Kysely looks for its tables in every schema and would find the default game's.
   */
  tableSchema?: string
}

/** Every migration the app knows, by the name the database records it under (app.ts gathers them). */
export type Migrations = Readonly<Record<string, Migration>>

/**
 * Brings the schema to the latest of `migrations` (the platform's and every feature's: app.ts
 * MIGRATIONS). A run holds a lock while it runs, so instances starting at once against one database
 * apply each migration once: on MySQL a lease on a row of the database (migration-lock.ts), which
 * holds across the nodes of a cluster too; on SQLite the write lock; on PostgreSQL Kysely's advisory
 * lock. A migration interrupted half-way (a crash, a kill) is resumed where it stopped:
 * migration-steps.ts.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  migrations: Migrations,
  options: MigrateOptions = {},
): Promise<string[]> {
  let lock: MigrationLock | null = null
  let outcome: MigrationResultSet
  try {
    lock = await takeMigrationLock(db)
    const held = lock
    // A run whose lease was lost stops at its next statement, once that statement is recorded.
    const onStep: StepHook | undefined = held
      ? async (event) => {
          if (event.phase === 'recorded') held.check()
          await options.onStep?.(event)
        }
      : options.onStep
    const migrator = new Migrator({
      db,
      provider: { getMigrations: async () => journaled(migrations, onStep) },
      ...(options.tableSchema && { migrationTableSchema: options.tableSchema }),
    })
    await ensureStepsTable(db)
    outcome = await migrator.migrateToLatest()
  } catch (error) {
    outcome = { error, results: undefined }
  }
  try {
    const { error, results } = outcome
    const failed = results?.find((r) => r.status === 'Error')
    if (error || failed) {
      const reason = error instanceof Error ? error.message : String(error ?? 'unknown error')
      // No migration named: the run failed before its first one (reaching the database, its lock, its table).
      const what = !failed
        ? 'The migrations could not start: '
        : error instanceof MigrationStepError
          ? `Migration ${failed.migrationName} failed at its `
          : `Migration ${failed.migrationName} failed: `
      throw new Error(`${what}${reason}`, { cause: error })
    }
    await forgetAppliedSteps(db)
    return (results ?? []).map((r) => r.migrationName)
  } finally {
    await lock?.release()
  }
}

/** Of `migrations`, those the database has not applied (read from Kysely's migration table). */
export async function pendingMigrations(db: Kysely<any>, migrations: Migrations): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name)
}
