import t from 'tap'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { createDb } from '../../db/index.js'
import { startCheckpointer } from '../../db/checkpointer.js'
import { testConfig } from '../helpers/app.js'

/**
 * SQLite's WAL is copied back into the database file by the checkpoint thread (db/checkpointer.ts),
 * not by a commit on the request thread: the server's own connection would only do it past 10,000
 * pages. Until a checkpoint, written pages live in the `-wal` file and the database file stays small.
 */
t.test('a WAL past 4 MB is checkpointed into the database file by the thread', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-checkpoint-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'test.db')
  const db = createDb(testConfig({ DB_DRIVER: 'sqlite', DB_PATH: path }))
  t.teardown(() => db.destroy())
  await sql`create table filler (bytes blob not null)`.execute(db)
  // About 6 MB of pages in many small commits, as requests write them.
  for (let i = 0; i < 1500; i++) await sql`insert into filler (bytes) values (randomblob(4000))`.execute(db)
  t.ok(statSync(`${path}-wal`).size > 4 * 1024 * 1024, 'the rows are in the WAL')
  t.ok(statSync(path).size < 1024 * 1024, 'and not yet in the database file')
  const deadline = Date.now() + 10_000
  while (statSync(path).size < 5 * 1024 * 1024 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.ok(statSync(path).size >= 5 * 1024 * 1024, 'the thread copied them into the database file')
  const rows = await sql<{ n: number }>`select count(*) as n from filler`.execute(db)
  t.equal(Number(rows.rows[0]!.n), 1500, 'every row is still there')
})

t.test('a checkpoint that fails is told, once, not swallowed', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-checkpoint-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'broken.db')
  // Not a database, beside a WAL past the start size: the thread starts, and every checkpoint fails.
  writeFileSync(path, randomBytes(8192))
  writeFileSync(`${path}-wal`, Buffer.alloc(5 * 1024 * 1024))
  const problems: Error[] = []
  const stop = startCheckpointer(path, (problem) => problems.push(problem))
  t.teardown(stop)
  const deadline = Date.now() + 10_000
  while (problems.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  t.equal(problems.length, 1, 'the failure reached the server')
  t.match(problems[0]?.message, /^WAL checkpoint failed: .*not a database/)
  await new Promise((resolve) => setTimeout(resolve, 1000))
  t.equal(problems.length, 1, 'five more failed ticks later, still one report (at most one a minute)')
})
