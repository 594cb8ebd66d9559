// `npm run backup -- FILE`: a consistent copy of the SQLite database while the server writes to it.
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import SQLite from 'better-sqlite3'
import { API_KEY, buildTestApp, freshDatabase, serverUrl } from '../helpers/app.js'
import { backupSqlite } from '../../db/backup.js'
import { main } from '../../scripts/backup/index.js'
import { createPostgresDatabase, dropPostgresDatabase, onPostgresServer } from '../../bench/postgres.js'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
const BACKUP_CLI = join(ROOT, 'dist/scripts/backup/index.js')
const WRITE_LOOP_MAX_MS = 30_000
const WRITE_LOOP_MAX_COUNT = 20_000

function capture() {
  const out = { text: '', write: (s: string) => (out.text += s) }
  const err = { text: '', write: (s: string) => (err.text += s) }
  return { io: { out, err }, out, err }
}

t.test('a backup taken while the server writes is whole and consistent', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const dbPath = ctx.env.DB_PATH!
  const dir = mkdtempSync(join(tmpdir(), 'outpost-backup-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const target = join(dir, 'copy.db')

  // Enough data that the copy takes a moment: 40 saves of 250 kB.
  const seed = await Promise.all(
    Array.from({ length: 40 }, () =>
      ctx.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } }),
    ),
  )
  for (const res of seed) {
    const userId = res.json().userId as string
    const save = await ctx.call({
      method: 'POST',
      url: '/cloud-save/save',
      payload: { userId, saveData: 'x'.repeat(250_000) },
    })
    t.equal(save.statusCode, 200)
  }
  const count = (db: SQLite.Database, table: string) =>
    (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n
  const live = new SQLite(dbPath, { readonly: true })
  t.teardown(() => live.close())
  const usersBefore = count(live, 'users')

  // The real command, in its own process, while this process keeps writing through the API:
  // each signup writes a user and its session in one transaction, then a score in another.
  const child = spawn(process.execPath, [BACKUP_CLI, target], {
    env: { PATH: process.env.PATH, API_KEY, DB_DRIVER: 'sqlite', DB_PATH: dbPath },
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr += chunk))
  let exited = false
  const exit = new Promise<number | null>((resolveExit) =>
    child.on('exit', (code) => {
      exited = true
      resolveExit(code)
    }),
  )
  const started = Date.now()
  let writes = 0
  while (!exited && writes < WRITE_LOOP_MAX_COUNT && Date.now() - started < WRITE_LOOP_MAX_MS) {
    const signup = await ctx.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } })
    if (signup.statusCode !== 201) t.fail(`signup ${signup.statusCode} during the backup`)
    const score = await ctx.call({
      method: 'POST',
      url: '/leaderboard/submit',
      payload: { userId: signup.json().userId, score: writes },
    })
    if (score.statusCode !== 200) t.fail(`score ${score.statusCode}`)
    writes++
    // Let the event loop breathe between writes (the child's output, the exit event).
    await new Promise((r) => setImmediate(r))
  }
  t.equal(await exit, 0, `the backup exits 0 (${stderr.trim()})`)
  t.ok(writes > 0, `${writes} signups and scores were written while the backup ran`)
  t.match(stdout, /integrity ok/)
  const usersAfter = count(live, 'users')

  const copy = new SQLite(target, { readonly: true, fileMustExist: true })
  t.teardown(() => copy.close())
  t.equal(copy.pragma('integrity_check', { simple: true }), 'ok', 'the copy passes integrity_check')
  t.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'the copy is one file, no WAL beside it')
  const users = count(copy, 'users')
  t.ok(
    users >= usersBefore && users <= usersAfter,
    `the copy holds ${users} users, between ${usersBefore} and ${usersAfter}`,
  )
  t.equal(count(copy, 'sessions'), users, 'every user in the copy has the session written with it: one instant')
  t.equal(count(copy, 'cloud_saves'), 40)
  const entries = count(copy, 'leaderboard_entries')
  const signups = users - usersBefore
  t.ok(entries <= signups && entries >= signups - 1, 'scores: at most the last signup is without its score yet')
  // The board's count tree is written in the score's own transaction: its root counts every entry.
  const root = copy.prepare('select coalesce(sum(n), 0) as n from leaderboard_counts where level = 0').get() as {
    n: number
  }
  t.equal(root.n, entries, 'the count tree agrees with the entries')
  const migrations = copy.prepare('select count(*) as n from kysely_migration').get() as { n: number }
  t.ok(migrations.n > 0, 'the migrations table came along')
})

t.test('backupSqlite refuses what would lose data', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-backup-refuse-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const source = join(dir, 'db.sqlite')
  const db = new SQLite(source)
  db.exec('create table x (id integer); insert into x values (1)')
  db.close()
  await t.rejects(backupSqlite(join(dir, 'missing.db'), join(dir, 'out.db')), /No SQLite database/)
  await t.rejects(backupSqlite(source, source), /must not be the database itself/)
  writeFileSync(join(dir, 'taken.db'), 'keep me')
  await t.rejects(backupSqlite(source, join(dir, 'taken.db')), /exists: name a new file/)
  const result = await backupSqlite(source, join(dir, 'fresh.db'))
  t.equal(result.integrity, 'ok')
  t.ok(result.bytes > 0)
})

t.test('the command explains itself, and points MySQL to mysqldump', async (t) => {
  const noEnv = join(tmpdir(), 'no-such-outpost.env')
  const usage = capture()
  t.equal(await main([], { API_KEY }, usage.io, noEnv), 2)
  t.match(usage.err.text, /Usage: npm run backup -- FILE/)
  const help = capture()
  t.equal(await main(['--help'], { API_KEY }, help.io, noEnv), 0)
  t.match(help.out.text, /Usage/)
  const mysql = capture()
  const mysqlEnv = {
    API_KEY,
    DB_DRIVER: 'mysql',
    DB_HOST: 'db.internal',
    DB_PORT: '3307',
    DB_USER: 'game',
    DB_NAME: 'outpost_live',
    DB_PASS: 'not-to-be-shown',
  }
  t.equal(await main(['backup.sql'], mysqlEnv, mysql.io, noEnv), 2)
  t.match(
    mysql.err.text,
    'mysqldump --single-transaction --routines --triggers -h db.internal -P 3307 -u game -p outpost_live > backup.sql',
    'the command is ready to run with the configured server, user and database',
  )
  t.notMatch(mysql.err.text, /HOST|PORT|USER|DB_NAME/, 'no placeholder left')
  t.notMatch(mysql.err.text, /not-to-be-shown/, 'the password is never printed')
  const odd = capture()
  await main(["it's.sql"], { ...mysqlEnv, DB_USER: 'o brien' }, odd.io, noEnv)
  t.match(odd.err.text, `-u 'o brien' -p outpost_live > 'it'\\''s.sql'`, 'odd values are quoted for the shell')
  t.notOk(existsSync('backup.sql'), 'nothing written for MySQL')
  const list = capture()
  await main(['backup.sql'], { ...mysqlEnv, DB_HOST: 'db1:3310,db2' }, list.io, noEnv)
  t.match(list.err.text, '-h db1 -P 3310 -u game', 'a list of hosts: the first (every node holds the data)')
  const bad = capture()
  t.equal(await main(['x.db'], {}, bad.io, noEnv), 1)
  t.match(bad.err.text, /API_KEY is required/)
})

t.test('PostgreSQL: points to pg_dump and pg_restore, filled in, the password never printed', async (t) => {
  const noEnv = join(tmpdir(), 'no-such-outpost.env')
  const env = {
    API_KEY,
    DB_DRIVER: 'postgres',
    DB_HOST: 'db.internal',
    DB_PORT: '5433',
    DB_USER: 'game',
    DB_NAME: 'outpost_live',
    DB_PASS: 'not-to-be-shown',
  }
  const plain = capture()
  t.equal(await main(['backup.dump'], env, plain.io, noEnv), 2, 'exit 2: nothing was backed up here')
  t.match(plain.err.text, 'this configuration uses PostgreSQL (DB_DRIVER=postgres)')
  t.match(plain.err.text, '\n  pg_dump -Fc -h db.internal -p 5433 -U game -d outpost_live -f backup.dump\n')
  t.match(
    plain.err.text,
    '\n  pg_restore --no-owner --exit-on-error -h db.internal -p 5433 -U game -d outpost_live backup.dump',
  )
  t.notMatch(plain.err.text, /not-to-be-shown/, 'the password is never printed')
  t.notMatch(plain.err.text, /PGSSLMODE/, 'DB_SSL=off: plain')
  const port = capture()
  await main(['x.dump'], { ...env, DB_PORT: '' }, port.io, noEnv)
  t.match(port.err.text, 'pg_dump -Fc -h db.internal -p 5432 ', "DB_PORT unset: PostgreSQL's own port")
  const required = capture()
  await main(['x.dump'], { ...env, DB_SSL: 'require' }, required.io, noEnv)
  t.match(required.err.text, '\n  PGSSLMODE=require pg_dump -Fc ')
  t.match(required.err.text, '\n  PGSSLMODE=require pg_restore ')
  const verified = capture()
  await main(['x.dump'], { ...env, DB_SSL: 'verify', DB_SSL_CA: '/etc/ssl/rds bundle.pem' }, verified.io, noEnv)
  t.match(verified.err.text, "\n  PGSSLMODE=verify-full PGSSLROOTCERT='/etc/ssl/rds bundle.pem' pg_dump -Fc ")
  const system = capture()
  await main(['x.dump'], { ...env, DB_SSL: 'verify' }, system.io, noEnv)
  t.match(system.err.text, 'PGSSLMODE=verify-full PGSSLROOTCERT=system pg_dump', "the system's authorities")
  const odd = capture()
  await main(["it's.dump"], { ...env, DB_USER: 'o brien' }, odd.io, noEnv)
  t.match(odd.err.text, `-U 'o brien' -d outpost_live -f 'it'\\''s.dump'`, 'odd values are quoted for the shell')
})

const dumpTools = ['pg_dump', 'pg_restore'].every((tool) => spawnSync(tool, ['--version']).status === 0)
t.test(
  'PostgreSQL: the printed commands dump a running database and restore it whole',
  {
    skip:
      (!serverUrl('postgres') && 'TEST_POSTGRES_URL is not set') ||
      (!dumpTools && 'pg_dump and pg_restore are not on PATH'),
  },
  async (t) => {
    const url = serverUrl('postgres')!
    const source = await freshDatabase(t, 'postgres')
    const ctx = await buildTestApp(t, 'postgres', { dbEnv: source })
    let userId = ''
    for (let i = 0; i < 5; i++) {
      const signup = await ctx.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } })
      const score = await ctx.call({
        method: 'POST',
        url: '/leaderboard/submit',
        payload: { userId: signup.json().userId, score: 100 * (i + 1) },
      })
      t.equal(score.statusCode, 200)
      userId = signup.json().userId
    }
    const dir = mkdtempSync(join(tmpdir(), 'outpost-pg-dump-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    const noEnv = join(dir, 'no.env')
    /** The command line of `npm run backup`'s advice that starts with `tool`. */
    const advised = async (env: Record<string, string>, tool: string) => {
      const io = capture()
      t.equal(await main(['outpost.dump'], { API_KEY, ...env }, io.io, noEnv), 2)
      return io.err.text
        .split('\n')
        .find((line) => line.startsWith(`  ${tool} `))!
        .trim()
    }
    const shell = (command: string) =>
      spawnSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8', timeout: 120_000 })
    const dump = shell(await advised(source, 'pg_dump'))
    t.equal(dump.status, 0, `pg_dump exits 0 ${dump.stderr}`)
    t.ok(statSync(join(dir, 'outpost.dump')).size > 0, 'the dump was written')

    const restoredName = `${source.DB_NAME}_restored`
    await createPostgresDatabase(url, restoredName)
    t.teardown(() => dropPostgresDatabase(url, restoredName))
    const restore = shell(await advised({ ...source, DB_NAME: restoredName }, 'pg_restore'))
    t.equal(restore.status, 0, `pg_restore exits 0 into an empty database ${restore.stderr}`)
    const counts = (name: string) =>
      onPostgresServer(
        url.replace(/\/[^/]*$/, `/${name}`),
        'select (select count(*) from users) as users, (select count(*) from leaderboard_entries) as entries, ' +
          '(select count(*) from kysely_migration) as migrations',
      )
    const [before] = (await counts(source.DB_NAME!)) as Array<Record<string, string>>
    const [after] = (await counts(restoredName)) as Array<Record<string, string>>
    t.same(after, before, `the restored database holds the same rows (${JSON.stringify(before)})`)
    t.equal(Number(after!.users), 5)
    // Outpost starts on the restored database and serves the same board.
    const restored = await buildTestApp(t, 'postgres', { dbEnv: { ...source, DB_NAME: restoredName } })
    const top = await restored.call({ method: 'GET', url: `/leaderboard/top?userId=${userId}&limit=10` })
    t.equal(top.statusCode, 200)
    t.same(
      top.json().entries.map((e: { score: number }) => e.score),
      [500, 400, 300, 200, 100],
      'the board came back',
    )
  },
)

t.test('the copy is private, written beside the target and put in place only when whole', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-backup-safe-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const source = join(dir, 'db.sqlite')
  const db = new SQLite(source)
  db.exec("create table users (email text, password_hash text); insert into users values ('a@b.c', 'hash')")
  db.close()
  const noEnv = join(tmpdir(), 'no-such-outpost.env')
  const run = async (target: string, dbPath = source) => {
    const io = capture()
    const code = await main([target], { API_KEY, DB_DRIVER: 'sqlite', DB_PATH: dbPath }, io.io, noEnv)
    return { code, out: io.out.text, err: io.err.text }
  }
  const listing = () => readdirSync(dir).sort()

  // A umask that lets everyone read new files: the copy must still be its owner's alone.
  const umask = process.umask(0o022)
  t.teardown(() => void process.umask(umask))
  const ok = await run(join(dir, 'copy.db'))
  t.equal(ok.code, 0, ok.err)
  t.equal(statSync(join(dir, 'copy.db')).mode & 0o777, 0o600, 'the copy is mode 0600')
  t.same(listing(), ['copy.db', 'db.sqlite'], 'no temporary file is left beside it')

  // A dangling link at the target: never followed (SQLite would create the file it points to).
  const elsewhere = join(dir, 'elsewhere.db')
  symlinkSync(elsewhere, join(dir, 'dangling.db'))
  const dangling = await run(join(dir, 'dangling.db'))
  t.equal(dangling.code, 1)
  t.match(dangling.err, /dangling\.db is a symbolic link: name a new file/)
  t.notOk(existsSync(elsewhere), 'nothing was written where the link points')
  symlinkSync(join(dir, 'copy.db'), join(dir, 'link.db'))
  const linked = await run(join(dir, 'link.db'))
  t.equal(linked.code, 1)
  t.match(linked.err, /link\.db is a symbolic link/)

  // An empty file is not a database to back up: a clear refusal, not "0 pages, integrity ok".
  const empty = join(dir, 'empty.db')
  writeFileSync(empty, '')
  const fromEmpty = await run(join(dir, 'from-empty.db'), empty)
  t.equal(fromEmpty.code, 1)
  t.match(fromEmpty.err, /empty \(0 bytes\).*check that DB_PATH/)
  t.equal(fromEmpty.out, '')
  const blank = await run(join(dir, 'from-blank.db'), ' ')
  t.equal(blank.code, 1)
  t.match(blank.err, /DB_PATH is empty/)
  const missing = await run(join(dir, 'from-missing.db'), join(dir, 'missing.db'))
  t.equal(missing.code, 1)
  t.match(missing.err, /No SQLite database at .*missing\.db: set DB_PATH/)

  // A copy that fails (the source is not a database) leaves nothing behind, temporary file included.
  const junk = join(dir, 'junk.db')
  writeFileSync(junk, 'not a database, '.repeat(1000))
  const before = listing()
  const failed = await run(join(dir, 'from-junk.db'), junk)
  t.equal(failed.code, 1)
  t.match(failed.err, /Backup failed: /)
  t.same(listing(), before, 'no copy and no temporary file remain')
})
