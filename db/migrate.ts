import { pathToFileURL } from 'node:url'
import { Migrator, type Kysely } from 'kysely'
import { migrations } from './migrations/index.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from './index.js'
import { describeConfigError, loadConfig } from '../config.js'
import { checkDatabase, explainDbError } from './startup-check.js'
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
}

/**
 * Brings the schema to the latest migration. Kysely's migrator holds a lock while it runs (on MySQL
 * `GET_LOCK`, held by its connection, so a killed run's lock goes with its connection; on SQLite the
 * write lock), so two instances starting at once against one database apply each migration once.
 * A migration interrupted half-way (a crash, a kill) is resumed where it stopped: migration-steps.ts.
 */
export async function migrateToLatest(db: Kysely<any>, options: MigrateOptions = {}): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => journaled(migrations, options.onStep) } })
  const { error, results } = await ensureStepsTable(db).then(
    () => migrator.migrateToLatest(),
    (error: unknown) => ({ error, results: undefined }),
  )
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
}

/** Migrations this code knows that the database has not applied (read from Kysely's migration table). */
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } })
  return (await migrator.getMigrations()).filter((m) => m.executedAt === undefined).map((m) => m.name)
}

async function main() {
  let config
  try {
    config = loadConfig(process.env, { envFile: '.env' })
  } catch (error) {
    process.stderr.write(`${describeConfigError(error as Error)}\n`)
    process.exit(1)
  }
  await checkDatabase(config)
  const db = createDb({ ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  try {
    const applied = await migrateToLatest(db).catch((error) => {
      throw explainDbError(error, config)
    })
    process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n')
  } finally {
    await db.destroy()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error) => {
    process.stderr.write(`${(error as Error).message}\n`)
    process.exit(1)
  })
}
