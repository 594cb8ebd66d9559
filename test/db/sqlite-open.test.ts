import t from 'tap'
import { spawn } from 'node:child_process'
import { statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import SQLite from 'better-sqlite3'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import { openSqlite } from '../../scripts/migrate-data/stores.js'
import { testConfig } from '../helpers/app.js'

/**
 * Two processes opening one new SQLite file at the same moment (two instances started together, a
 * server and the operator CLI): each turns the file to WAL, SQLite refuses one of them at once
 * (SQLITE_BUSY, without its busy wait), and that start must not fail for it. Before the open retried,
 * most synchronized pairs here lost one side to "database is locked".
 */

const DB_INDEX = new URL('../../db/index.js', import.meta.url).href

/** A process that waits for the wall clock to reach `at`, then opens `path` as the server does. */
function openAt(path: string, at: number): Promise<string> {
  const script = `
    const { createDb } = await import(${JSON.stringify(DB_INDEX)})
    while (Date.now() < ${at}) {}
    const config = { DB_DRIVER: 'sqlite', DB_PATH: ${JSON.stringify(path)}, DB_QUERY_TIMEOUT_MS: 5000 }
    try {
      const db = createDb(config)
      await db.destroy()
      process.stdout.write('opened')
    } catch (error) {
      process.stdout.write(error.code + ': ' + error.message)
    }`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return new Promise((resolve) => child.once('exit', () => resolve(out)))
}

t.test('two processes opening one new file at once both open it, in WAL mode', async (t) => {
  const dir = t.testdir()
  for (let round = 0; round < 8; round++) {
    const path = join(dir, `new-${round}.db`)
    // Both processes load first (about 200 ms here), then open within a millisecond of each other.
    const at = Date.now() + 800
    const answers = await Promise.all([openAt(path, at), openAt(path, at)])
    t.same(answers, ['opened', 'opened'], `round ${round}: both opened`)
    const check = new SQLite(path)
    t.equal(check.pragma('journal_mode', { simple: true }), 'wal', 'the file is in WAL mode')
    check.close()
  }
})

t.test(
  'a new database, its WAL and shared-memory files, and a new migrate-data target are private (0600)',
  async (t) => {
    // The usual umask, whatever the runner's: SQLite alone would create these 0644, readable by all.
    const umask = process.umask(0o022)
    t.teardown(() => void process.umask(umask))
    const dir = t.testdir()
    const path = join(dir, 'server.db')
    const db = createDb(testConfig({ DB_DRIVER: 'sqlite', DB_PATH: path }))
    try {
      await sql`create table marks (id integer primary key)`.execute(db)
      await sql`insert into marks (id) values (1)`.execute(db)
      for (const file of [path, `${path}-wal`, `${path}-shm`]) {
        t.equal((statSync(file).mode & 0o777).toString(8), '600', `${file.slice(dir.length + 1)} is mode 0600`)
      }
    } finally {
      await db.destroy()
    }

    const target = join(dir, 'moved.db')
    await openSqlite(target, 'target').close()
    t.equal((statSync(target).mode & 0o777).toString(8), '600', "migrate-data's new SQLite target is mode 0600")

    // A file the operator made keeps the mode they gave it.
    const shared = join(dir, 'shared.db')
    writeFileSync(shared, '', { mode: 0o640 })
    await createDb(testConfig({ DB_DRIVER: 'sqlite', DB_PATH: shared })).destroy()
    t.equal((statSync(shared).mode & 0o777).toString(8), '640', 'an existing file keeps its mode')
  },
)
