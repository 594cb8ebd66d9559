// `import:php` holds every row to the API's own checks (issue 38): a NUL, a bidirectional override or
// bytes that are not UTF-8 are refused and listed, never stored; a refused user's rows are all left
// out (never attached to the Outpost player who has the same id); crash data has its NULs taken out.
// The PHP database is built here in the PHP server's table layout, so no PHP is needed.
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import tap, { type Test } from 'tap'
import SQLite from 'better-sqlite3'
import { buildTestApp, eachDialect } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { runImport } from '../../helpers/php-import.js'
import { isDatabaseUnavailable, isStatementRefused } from '../../../db/dialect.js'

/** The PHP server's tables, as its migration lays them out (the columns the import reads). */
const PHP_TABLES = [
  'create table users (id text primary key, display_name text not null, anonymous_token text unique not null, session_token text, session_expires_at text, created_at text not null)',
  'create table leaderboard (id text primary key, user_id text not null unique, score integer not null, updated_at text not null)',
  'create table cloud_saves (user_id text primary key, data text, updated_at text not null)',
  'create table remote_configs (config_key text primary key, config_value text)',
  'create table user_feedback (id text primary key, user_id text not null, title text not null, message text not null, category text, email text, device_info text, created_at text not null)',
  'create table user_logs (id text primary key, user_id text not null, message text not null, type text not null, error_code text, created_at text not null)',
  'create table crash_sessions (id text primary key, session_id text unique not null, user_id text, app_version text not null, platform text not null, has_crash integer not null default 0, created_at text not null)',
  'create table crash_reports (id text primary key, type text not null, message text not null, stack_trace text, fingerprint text not null, app_version text not null, sdk_version text not null, platform text not null, os text not null, device_model text not null, device_memory_mb integer not null default 0, session_id text not null, user_id text, breadcrumbs text, custom_keys text, created_at text not null)',
]

const T = '2026-11-01 12:00:00'
const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

interface Fixture {
  path: string
  ids: Record<'alice' | 'nul' | 'notUtf8' | 'bidi' | 'clash', string>
}

/** A PHP database with one good player and four the API would refuse, each with a save, a score and more. */
function phpDatabase(t: Test, clashId: string): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-php-fixture-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'horizon.db')
  const db = new SQLite(path)
  for (const statement of PHP_TABLES) db.exec(statement)
  const ids = { alice: uuid(1), nul: uuid(2), notUtf8: uuid(3), bidi: uuid(4), clash: clashId }
  const user = db.prepare('insert into users (id, display_name, anonymous_token, created_at) values (?, ?, ?, ?)')
  user.run(ids.alice, 'alice', 'a'.repeat(32), T)
  user.run(ids.nul, 'bad\u0000name', 'b'.repeat(32), T)
  user.run(ids.bidi, '\u202Eevil', 'd'.repeat(32), T)
  // The same id as a player of the Outpost server, with another anonymous token: another person.
  user.run(ids.clash, 'impostor', 'e'.repeat(32), T)
  // Bytes PHP stored as they came: "caf" then a lone 0xE9 (Latin-1 é), not UTF-8.
  db.prepare(
    "insert into users (id, display_name, anonymous_token, created_at) values (?, cast(x'636166e9' as text), ?, ?)",
  ).run(ids.notUtf8, 'c'.repeat(32), T)
  for (const [n, id] of Object.values(ids).entries()) {
    db.prepare('insert into leaderboard (id, user_id, score, updated_at) values (?, ?, ?, ?)').run(
      uuid(100 + n),
      id,
      10 + n,
      T,
    )
    db.prepare('insert into cloud_saves (user_id, data, updated_at) values (?, ?, ?)').run(id, `save of ${n}`, T)
    db.prepare('insert into user_logs (id, user_id, message, type, created_at) values (?, ?, ?, ?, ?)').run(
      uuid(200 + n),
      id,
      'played',
      'INFO',
      T,
    )
    db.prepare(
      'insert into crash_sessions (id, session_id, user_id, app_version, platform, created_at) values (?, ?, ?, ?, ?, ?)',
    ).run(uuid(300 + n), `run-${n}`, id, '1.0.0', 'android', T)
  }
  const feedback = db.prepare(
    'insert into user_feedback (id, user_id, title, message, category, created_at) values (?, ?, ?, ?, ?, ?)',
  )
  feedback.run(uuid(400), ids.alice, 'Fine', 'all good', 'BUG', T)
  feedback.run(uuid(401), ids.alice, 'Map\u0000', 'freezes', 'BUG', T)
  db.prepare(
    "insert into user_logs (id, user_id, message, type, created_at) values (?, ?, cast(x'80' as text), 'INFO', ?)",
  ).run(uuid(250), ids.alice, T)
  db.prepare('insert into remote_configs (config_key, config_value) values (?, ?)').run('motd', 'hi\u0000there')
  db.prepare('insert into remote_configs (config_key, config_value) values (?, ?)').run('max_level', '42')
  const report = db.prepare(
    `insert into crash_reports (id, type, message, fingerprint, app_version, sdk_version, platform, os, device_model,
       session_id, user_id, breadcrumbs, custom_keys, created_at) values (?, 'CRASH', ?, ?, '1.0.0', '2.0.0', 'android',
       'Android 14', 'Pixel 8', 'run-0', ?, ?, ?, ?)`,
  )
  // Crash data is never lost for a NUL: taken out, in plain columns and inside the JSON text.
  report.run(uuid(500), 'boom\u0000!', 'fp-1', ids.alice, '[{"message":"op\\u0000en"}]', '{"lvl":"3\\u0000"}', T)
  report.run(uuid(501), 'of a refused user', 'fp-2', ids.clash, null, null, T)
  db.close()
  return { path, ids }
}

eachDialect(tap, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const db = ctx.app.db
  // The Outpost player whose id the PHP server also has, for someone else.
  const player = await createUser(ctx, { username: 'the real one' })
  const php = phpDatabase(t, player.userId)

  const run = await runImport(['--from', php.path], ctx.env as Record<string, string>)
  t.equal(run.status, 0, run.stderr)
  t.same(run.counts.users, [5, 1, 0, 4], 'users: alice copied, four refused')
  t.same(run.counts.leaderboard, [5, 1, 0, 4], "only alice's score")
  t.same(run.counts.cloud_saves, [5, 1, 0, 4], "only alice's save")
  t.same(run.counts.user_logs, [6, 1, 0, 5], "only alice's good log line")
  t.same(run.counts.user_feedback, [2, 1, 0, 1], 'the feedback with a NUL is refused')
  t.same(run.counts.remote_configs, [2, 1, 0, 1], 'the config value with a NUL is refused')
  t.same(run.counts.crash_sessions, [5, 1, 0, 4], "only alice's session")
  t.same(run.counts.crash_reports, [2, 1, 0, 1], "alice's report, without its NULs; not the refused user's")
  const listed = (text: string, what: string) => t.ok(run.stdout.includes(text), what)
  listed(`users ${uuid(2)}: display_name must not hold a NUL character`, 'the NUL name is listed with the rule')
  listed(`users ${uuid(3)}: display_name is not valid UTF-8 text`, 'the bytes that are not UTF-8 are listed')
  listed(`users ${uuid(4)}: body/username must match pattern`, "the bidi override is refused by the API's name schema")
  listed(`users ${player.userId}: an Outpost user with id ${player.userId} already exists`, 'the clash')
  listed(
    `cloud_saves user ${player.userId}: its user ${player.userId} was not imported (refused above)`,
    "the refused user's save is listed, not attached",
  )
  listed(`user_feedback ${uuid(401)}: title must not hold a NUL`, 'the feedback title')
  listed(`user_logs ${uuid(250)}: message is not valid UTF-8 text`, 'the log line')
  listed('remote_configs motd: config_value must not hold a NUL', 'the config value')

  // Nothing of the refused users reached the Outpost player of the same id, or anyone.
  const of = async (table: 'cloud_saves' | 'leaderboard_entries' | 'user_logs', userId: string) =>
    db.selectFrom(table).select('user_id').where('user_id', '=', userId).execute()
  t.same(await of('cloud_saves', player.userId), [], 'the Outpost player got no save')
  t.same(await of('leaderboard_entries', player.userId), [], 'the Outpost player got no score')
  t.same(await of('user_logs', player.userId), [], 'the Outpost player got no log line')
  const linked = await db.selectFrom('crash_reports').select('id').where('linked_user_id', '=', player.userId).execute()
  t.same(linked, [], 'and no crash report')
  t.equal(
    (await db.selectFrom('users').select('username').where('id', '=', player.userId).executeTakeFirst())?.username,
    'the real one',
  )
  const names = (await db.selectFrom('users').select('username').execute()).map((u) => u.username).sort()
  t.same(names, ['alice', 'the real one'], 'no refused name was stored')

  const report = await db.selectFrom('crash_reports').selectAll().where('id', '=', uuid(500)).executeTakeFirstOrThrow()
  t.equal(report.message, 'boom!', 'the NUL is taken out of the report')
  t.match(report.breadcrumbs, /"message":"open"/, 'and out of the breadcrumbs')
  t.match(report.custom_keys, /"lvl":"3"/, 'and out of the custom keys')
  t.equal(report.linked_user_id, php.ids.alice, "alice's report is hers")

  // A second run refuses the same rows, for the same reasons, and copies nothing twice.
  const again = await runImport(['--from', php.path], ctx.env as Record<string, string>)
  t.same(again.counts.users, [5, 0, 1, 4])
  t.same(again.counts.cloud_saves, [5, 0, 1, 4])
  t.same(await of('cloud_saves', player.userId), [], 'still no save on the Outpost player')

  // A dry run now meets a key that exists at every row, inside its one transaction, and goes on.
  const dry = await runImport(['--from', php.path, '--dry-run'], ctx.env as Record<string, string>)
  t.equal(dry.status, 0, `the dry run after the import exits 0: ${dry.stderr}`)
  t.same(dry.counts.users, [5, 0, 1, 4])
  t.same(dry.counts.crash_reports, [2, 0, 1, 1])

  // A value the database itself refuses is that row's refusal (listed), never taken for a lost database.
  const refusal = await db
    .insertInto('user_logs')
    .values({ id: uuid(900), user_id: php.ids.alice, message: null as never, type: 'INFO', created_at: 0 })
    .execute()
    .then(
      () => null,
      (error: unknown) => error,
    )
  t.ok(isStatementRefused(refusal), 'a NOT NULL column refusing a row: a refused statement')
  t.notOk(isDatabaseUnavailable(refusal))
})

tap.test('--from a directory is refused and leaves no temporary folder', async (t) => {
  const scratch = mkdtempSync(join(tmpdir(), 'outpost-tmp-'))
  t.teardown(() => rmSync(scratch, { recursive: true, force: true }))
  const from = join(scratch, 'a-folder')
  mkdirSync(from)
  // os.tmpdir() reads TMPDIR on each call: the import's temporary folders land in `scratch`.
  const saved = process.env.TMPDIR
  process.env.TMPDIR = scratch
  t.teardown(() => {
    if (saved === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = saved
  })
  const dbEnv = { DB_DRIVER: 'sqlite', DB_PATH: join(scratch, 'o.db') }
  const before = readdirSync(scratch).sort()
  const dir = await runImport(['--from', from], dbEnv)
  t.equal(dir.status, 2, dir.stderr)
  t.match(dir.stderr, /is not a file: give the PHP server's SQLite file/)
  t.same(readdirSync(scratch).sort(), before, 'no temporary folder left')
})
