// `npm run migrate`: brings the database the server is configured for (same .env and environment) to
// the latest migration, the platform's and every feature's (app.ts MIGRATIONS), then exits.
import { pathToFileURL } from 'node:url'
import { MIGRATIONS } from '../../app.js'
import { describeConfigError, loadConfig } from '../../config.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { checkDatabase, explainDbError } from '../../db/startup-check.js'

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
    const applied = await migrateToLatest(db, MIGRATIONS).catch((error) => {
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
