import t from 'tap'
import { spawn } from 'node:child_process'
import type { Connection } from 'mysql2/promise'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import type { StepHook } from '../../db/migration-steps.js'
import { ADMIN_KEY, API_KEY, eachDialect, freshDatabase, testConfig, type Dialect } from '../helpers/app.js'
import { endpoint, migrateData } from '../helpers/migrate-data.js'
import { adminOf, endSessions, migratingDb, reference, snapshot, type Env } from '../helpers/migration-crash.js'

/**
 * Migrations killed part-way, then run again, end as a database migrated in one clean run: the same
 * tables, columns, indexes, foreign keys and seeded rows. MySQL commits each DDL statement on its own
 * (db/migration-steps.ts keeps a journal of them); SQLite and PostgreSQL undo a crashed run whole.
 * Here real processes are killed with SIGKILL at chosen statements, and statements refused for a real
 * reason stop every run with the way out (test/db/migrations-killed.test.ts stops at every statement).
 */
const ROOT = new URL('../../../', import.meta.url).pathname
const CHILD = 'dist/test/helpers/migrate-until-killed.js'
/** Kysely's name for MySQL's migration lock (GET_LOCK), held by the migrating connection. */
const MYSQL_LOCK = 'ea586330-2c93-47c8-908d-981d9d270f9d'

interface Exit {
  signal: NodeJS.Signals | null
  code: number | null
  stdout: string
  stderr: string
}

function runChild(env: Env, point: string): Promise<Exit> {
  const child = spawn(process.execPath, [CHILD, point], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', API_KEY, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'silent', ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })))
}

/** The killed process's session has left the server and holds no migration lock (polled: the server notices the closed socket). */
async function sessionGone(admin: Connection, id: number): Promise<boolean> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const [rows] = await admin.query(
      'select (select count(*) from information_schema.processlist where id = ?) as open, is_used_lock(?) as holder',
      [id, MYSQL_LOCK],
    )
    const { open, holder } = (rows as Array<{ open: number; holder: number | null }>)[0]!
    if (Number(open) === 0 && Number(holder) !== id) return true
    if (Date.now() > deadline) return false
    await new Promise((r) => setTimeout(r, 50))
  }
}

/**
 * Where the processes are killed: `migration:step:phase`, `applied` being after the statement ran
 * (a DDL statement committed, its journal row not yet written: the gap; an INSERT/UPDATE still in
 * its transaction), `recorded` after its journal row. In order of the run; a point a run does not
 * reach would let it finish, and the test would see no kill. (The first test stops a run after every
 * statement; these are the cases where a real process's death matters most.)
 */
const KILLS: Record<Dialect, string[]> = {
  mysql: [
    '0001_create_users:1:applied', // ALTER DATABASE, the very first statement
    '0040_add_user_credentials:2:applied', // the issue's case: a column added, not recorded
    '0040_add_user_credentials:4:applied', // its UPDATE, uncommitted
    '0044_seed_system_email_templates:1:recorded', // one seed row in
    '0044_seed_system_email_templates:2:applied', // the second one uncommitted
    '0046_rekey_login_failures:6:recorded', // every statement recorded, the migration not yet
    '0121_drop_ban_generation:1:recorded', // a read recorded
    '0121_drop_ban_generation:2:applied', // the insert that depends on it, uncommitted
    '0121_drop_ban_generation:3:applied', // the table read dropped, not recorded: the read is replayed
  ],
  // A kill undoes SQLite's whole run: each run starts again from the first migration.
  sqlite: [
    '0001_create_users:1:applied',
    '0040_add_user_credentials:4:applied',
    '0046_rekey_login_failures:5:applied',
    '0121_drop_ban_generation:3:applied',
  ],
  // PostgreSQL runs all the migrations in one transaction: a kill undoes the whole run too, and the
  // server, on the killed client's closed socket, rolls it back and frees its migration lock.
  postgres: [
    '0001_create_users:1:applied',
    '0040_add_user_credentials:2:applied',
    '0044_seed_system_email_templates:2:applied',
    '0121_drop_ban_generation:3:applied',
  ],
}

eachDialect(t, async (t, dialect) => {
  const clean = await reference(t, dialect)

  t.test('killed with SIGKILL at chosen statements, then finished by migrate-data (the reported case)', async (t) => {
    const env = await freshDatabase(t, dialect)
    const admin = dialect === 'mysql' ? await adminOf(t, env) : null
    const started = Date.now()
    for (const point of KILLS[dialect]) {
      const exit = await runChild(env, point)
      t.equal(exit.signal, 'SIGKILL', `killed at ${point}${exit.signal ? '' : `: ${exit.stderr}`}`)
      if (admin) {
        const id = Number(/^connection (\d+)$/m.exec(exit.stdout)?.[1])
        t.ok(await sessionGone(admin, id), `the killed run's session (${id}) and its migration lock are gone`)
      }
      if (dialect === 'postgres') {
        const db = createDb(testConfig(env))
        // Kysely makes its own two tables before the run's transaction; the run's own left nothing.
        const { rows } = await sql<{ tables: number; migrations: number }>`select
          (select count(*) from information_schema.tables where table_schema = current_schema()
            and table_name not like 'kysely_migration%') as tables,
          (select count(*) from kysely_migration) as migrations`
          .execute(db)
          .finally(() => db.destroy())
        t.same(rows, [{ tables: 0, migrations: 0 }], `nothing of the run killed at ${point} is left`)
      }
    }
    if (dialect === 'postgres') {
      // migrate-data takes no PostgreSQL address yet: the killed runs are finished by a plain run.
      const db = migratingDb(env)
      const applied = await migrateToLatest(db, MIGRATIONS).finally(() => db.destroy())
      t.equal(applied[0], '0001_create_users', 'it starts from the first migration: the killed runs left none applied')
    } else {
      const source = await freshDatabase(t, 'sqlite')
      const sourceDb = migratingDb(source)
      await migrateToLatest(sourceDb, MIGRATIONS).finally(() => sourceDb.destroy())
      const moved = await migrateData('--from', endpoint(source), '--to', endpoint(env))
      t.equal(moved.status, 0, `migrate-data finishes the target's migrations and moves: ${moved.stderr}`)
    }
    t.comment(
      `${dialect}: ${KILLS[dialect].length} kills and the move, ${((Date.now() - started) / 1000).toFixed(1)} s`,
    )
    t.same(await snapshot(env, dialect), clean.database, 'the same database as one clean run')
  })

  t.test('a refused statement: the error names it and says what to do; it is never taken for applied', async (t) => {
    const env = await freshDatabase(t, dialect)
    const attempt = async (onStep?: StepHook) => {
      const db = migratingDb(env)
      try {
        await migrateToLatest(db, MIGRATIONS, { onStep })
        return null
      } catch (error) {
        return (error as Error).message
      } finally {
        await db.destroy().catch(() => {})
      }
    }
    // By hand, on a connection of its own (a crash below ends every other session on the database).
    const exec = async (text: string) => {
      const db = createDb(testConfig(env))
      try {
        return (await sql.raw<Record<string, unknown>>(text).execute(db)).rows
      } finally {
        await db.destroy()
      }
    }
    // Made by hand where 0046 makes a table of that name.
    await exec('create table login_locks (x integer)')
    const recover = /UPDATE migration_steps SET done_at = 1 WHERE migration = '[^']+' AND step = \d+/

    if (dialect === 'mysql') {
      // An older Outpost, killed in 0040 after its second statement: two columns added, no journal.
      const admin = await adminOf(t, env)
      await attempt(async (e) => {
        if (e.migration !== '0040_add_user_credentials' || e.step !== 2 || e.phase !== 'applied') return
        await endSessions(admin)
        throw new Error('crashed')
      })
      await exec(`delete from migration_steps where migration = '0040_add_user_credentials'`)
      const first = await attempt()
      t.match(
        first,
        /^Migration 0040_add_user_credentials failed at its statement 1 \(alter table `users` add column `password_hash` varchar\(255\)\): Duplicate column name 'password_hash'\. The statements before it are applied and recorded in migration_steps\. If its change is in the database already .*record it as done and start again: UPDATE migration_steps SET done_at = 1 WHERE migration = '0040_add_user_credentials' AND step = 1\. If the database cannot be brought there, restore the backup taken before the upgrade \(docs\/troubleshooting\.md#a-migration-that-stopped-half-way\)$/,
      )
      t.equal(await attempt(), first, 'run again as it is, it fails the same way: the error is not taken for "done"')
      // As the message says. Statement 2's change, there too, is then the one a resumed run may find
      // done (the first past the recorded ones), and the run goes on to the next problem.
      await exec(recover.exec(first!)![0])
    }

    const stray = await attempt()
    t.match(
      stray,
      /^Migration 0046_rekey_login_failures failed at its statement 5 \(create table [`"]?login_locks[`"]? .*already exists/,
    )
    t.match(stray, /\(docs\/troubleshooting\.md#a-migration-that-stopped-half-way\)$/)
    if (dialect === 'mysql') {
      t.match(
        stray,
        /UPDATE migration_steps SET done_at = 1 WHERE migration = '0046_rekey_login_failures' AND step = 5/,
      )
    } else if (dialect === 'sqlite') {
      t.match(stray, /The migration was rolled back whole .*so the database is as it was before it/)
      const columns = await exec(`select name from pragma_table_info('login_failures')`)
      t.ok(
        columns.some((c) => c.name === 'user_id'),
        'login_failures is as before 0046: its four statements before the refused one are undone',
      )
    } else {
      t.match(stray, /rolled back whole/)
      const tables = await exec(
        `select table_name from information_schema.tables where table_schema = current_schema()
          and table_name not like 'kysely_migration%'`,
      )
      t.same(
        tables.map((r) => r.table_name),
        ['login_locks'],
        'the run was one transaction: every migration of it is undone, the stray table alone is left',
      )
    }
    t.equal(await attempt(), stray, 'run again as it is, it fails the same way')
    await exec('drop table login_locks')
    t.equal(await attempt(), null, 'once the stray table is gone, the run goes on and ends')
    t.same(await snapshot(env, dialect), clean.database, 'the same database as one clean run')
  })
})
