// Run by test/db/migrations-killed.test.ts as a process of its own (node dist/test/helpers/…): migrates
// the database its DB_* environment names, as `npm run migrate` does, and kills itself with SIGKILL
// at the statement named by its argument `<migration>:<step>:<phase>` (none: it runs to the end).
// On MySQL it first prints the id of its one connection, which holds the migration lock.
import { sql } from 'kysely'
import { loadConfig } from '../../config.js'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'

const [migration, step, phase] = (process.argv[2] ?? '').split(':')
const config = loadConfig(process.env)
const db = createDb({ ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
if (config.DB_DRIVER === 'mysql') {
  const { rows } = await sql<{ id: number }>`select connection_id() as id`.execute(db)
  process.stdout.write(`connection ${rows[0]!.id}\n`)
}
await migrateToLatest(db, MIGRATIONS, {
  onStep: async (event) => {
    if (event.migration !== migration || event.step !== Number(step) || event.phase !== phase) return
    process.kill(process.pid, 'SIGKILL')
    await new Promise(() => {})
  },
})
await db.destroy()
process.stdout.write('migrated\n')
