// `import:php` on a PHP server's database that the test builds itself (test/fixtures/php-database.ts,
// filled from test/fixtures/php-rows.ts), into Outpost on every engine: from a PHP database on the same
// engine where the PHP server runs on it (SQLite, MySQL), else from SQLite. Every row the import reads
// is checked in Outpost's tables, field by field.
import { existsSync } from 'node:fs'
import t, { type Test } from 'tap'
import { buildTestApp, eachDialect, freshDatabase, testConfig } from '../../helpers/app.js'
import { runImport } from '../../helpers/php-import.js'
import { makePhpDatabase, phpDialectFor } from '../../fixtures/php-database.js'
import { phpRows, type PhpRow } from '../../fixtures/php-rows.js'
import { createDb, isDatabaseServer } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'
import { hashToken } from '../../../platform/security/secrets.js'
import type { Db } from '../../../db/types.js'

const MYSQL_URL = process.env.TEST_MYSQL_URL

/** A PHP time (`T` or space, UTC) in milliseconds. */
const ms = (value: unknown) => Date.parse(`${String(value).replace(' ', 'T')}Z`)

async function withDb<T>(env: Record<string, string>, body: (db: Db) => Promise<T>): Promise<T> {
  const db = createDb(testConfig(env))
  try {
    return await body(db)
  } finally {
    await db.destroy()
  }
}

async function countAll(env: Record<string, string>): Promise<Record<string, number>> {
  return withDb(env, async (db) => {
    const counts: Record<string, number> = {}
    for (const table of [
      'users',
      'leaderboard_entries',
      'cloud_saves',
      'remote_configs',
      'news',
      'gift_codes',
      'gift_code_redemptions',
      'user_feedback',
      'user_logs',
      'crash_sessions',
      'crash_reports',
      'crash_groups',
    ] as const) {
      const row = await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      counts[table] = Number(row.n)
    }
    return counts
  })
}

const byId = <T extends Record<string, unknown>>(rows: T[], key: keyof T) =>
  new Map(rows.map((r) => [String(r[key]), r]))

async function checkRows(t: Test, env: Record<string, string>, data: ReturnType<typeof phpRows>) {
  const { rows, alice, bob, carol } = data
  await withDb(env, async (db) => {
    const users = byId(await db.selectFrom('users').selectAll().execute(), 'id')
    t.equal(users.size, 3, 'three users: the blank name is refused')
    for (const [php, name] of [
      [alice, 'alice'],
      [bob, 'Bøb 🐉'],
      [carol, 'carol'],
    ] as const) {
      const u = users.get(String(php.id))
      t.ok(u, `user ${name} kept its id`)
      t.equal(u?.username, name)
      t.equal(
        u?.anonymous_token_hash,
        hashToken(String(php.anonymous_token)),
        `${name}: the anonymous token carried over`,
      )
      t.equal(Number(u?.created_at), ms(php.created_at), `${name}: created at the PHP time`)
      t.equal(u?.is_anonymous, 1)
    }

    const entries = byId(await db.selectFrom('leaderboard_entries').selectAll().execute(), 'user_id')
    t.equal(entries.size, 3)
    for (const score of rows.leaderboard.slice(0, 3)) {
      const e = entries.get(String(score.user_id))
      t.equal(Number(e?.score), score.score, `score ${score.score}`)
      t.equal(Number(e?.reached_at), ms(score.updated_at), 'reached at the PHP time')
    }

    const saves = byId(await db.selectFrom('cloud_saves').selectAll().execute(), 'user_id')
    t.equal(saves.size, 2, 'the null save is refused')
    for (const save of rows.cloud_saves.slice(0, 2)) {
      const s = saves.get(String(save.user_id))
      t.equal(Buffer.from(s!.data).toString('utf8'), save.data, 'the save, byte for byte')
      t.equal(Number(s?.updated_at), ms(save.updated_at))
      t.equal(s?.is_binary, 0)
    }

    const configs = await db.selectFrom('remote_configs').select(['config_key', 'config_value']).execute()
    t.same(
      Object.fromEntries(configs.map((c) => [c.config_key, c.config_value])),
      { max_level: '42', motd: 'Welcome back, héros' },
      'configs, the null one refused',
    )

    const news = byId(await db.selectFrom('news').selectAll().execute(), 'id')
    for (const n of rows.news) {
      const o = news.get(String(n.id))
      t.match(o, { title: n.title, message: n.message, language_code: n.language_code }, `news ${n.title}`)
      t.equal(Number(o?.release_date), ms(n.published_at))
      t.equal(Number(o?.created_at), ms(n.created_at))
    }

    const codes = byId(await db.selectFrom('gift_codes').selectAll().execute(), 'id')
    t.equal(codes.size, 2, 'the code with spaces is refused')
    for (const g of rows.gift_codes.slice(0, 2)) {
      const o = codes.get(String(g.id))
      t.equal(o?.code, String(g.code).toUpperCase(), `code ${g.code}`)
      t.equal(o?.gift_data, g.reward_data, 'reward_data is the gift data')
      t.equal(Number(o?.max_redemptions), g.max_redemptions)
      t.equal(Number(o?.redemption_count), g.current_redemptions)
      t.equal(o?.expires_at === null ? null : Number(o?.expires_at), g.expires_at === null ? null : ms(g.expires_at))
      t.equal(Number(o?.created_at), ms(g.created_at))
    }
    const redemptions = await db.selectFrom('gift_code_redemptions').selectAll().execute()
    const r = rows.gift_code_redemptions[0]!
    t.match(redemptions, [{ gift_code_id: r.gift_code_id, user_id: r.user_id }])
    t.equal(Number(redemptions[0]?.redeemed_at), ms(r.redeemed_at))

    const feedback = await db.selectFrom('user_feedback').selectAll().execute()
    const f = rows.user_feedback[0]!
    t.match(feedback, [
      { id: f.id, user_id: f.user_id, title: f.title, message: f.message, category: f.category, email: f.email },
    ])
    t.equal(feedback[0]?.device_info, f.device_info)
    t.equal(Number(feedback[0]?.created_at), ms(f.created_at))

    const logs = byId(await db.selectFrom('user_logs').selectAll().execute(), 'id')
    t.equal(logs.size, 2, 'the orphan log is refused')
    for (const l of rows.user_logs.slice(0, 2)) {
      t.match(logs.get(String(l.id)), {
        user_id: l.user_id,
        message: l.message,
        type: l.type,
        error_code: l.error_code,
      })
      t.equal(Number(logs.get(String(l.id))?.created_at), ms(l.created_at))
    }

    const sessions = byId(await db.selectFrom('crash_sessions').selectAll().execute(), 'session_id')
    for (const s of rows.crash_sessions) {
      const o = sessions.get(String(s.session_id))
      t.match(o, { app_version: s.app_version, platform: s.platform, user_id: s.user_id }, `session ${s.session_id}`)
      t.equal(Number(o?.created_at), ms(s.created_at))
    }
    t.equal(sessions.get('run-1')?.linked_user_id, alice.id, 'a session of a known user is linked to the player')

    const reports = byId(await db.selectFrom('crash_reports').selectAll().execute(), 'id')
    for (const c of rows.crash_reports as PhpRow[]) {
      const o = reports.get(String(c.id))
      t.match(
        o,
        {
          type: c.type,
          message: c.message,
          fingerprint: c.fingerprint,
          app_version: c.app_version,
          os: c.os,
          device_model: c.device_model,
          session_id: c.session_id,
        },
        `report ${c.message}`,
      )
      t.equal(o?.stack_trace || null, c.stack_trace)
      t.equal(Number(o?.created_at), ms(c.created_at))
      // Outpost keeps no breadcrumbs as [] and no custom keys as {}, as its API answers them.
      t.same(JSON.parse(o!.breadcrumbs), c.breadcrumbs ? JSON.parse(String(c.breadcrumbs)) : [])
      t.same(JSON.parse(o!.custom_keys), c.custom_keys ? JSON.parse(String(c.custom_keys)) : {})
    }
    t.same(
      JSON.parse(reports.get(String(rows.crash_reports[0]!.id))!.custom_keys),
      { level: '3', zone: 'Ærø' },
      'JSON escapes decoded',
    )

    const groups = byId(await db.selectFrom('crash_groups').selectAll().execute(), 'fingerprint')
    t.match(
      groups.get('nre-update'),
      { status: 'RESOLVED', resolved_in_version: '1.0.2' },
      'the operator’s status kept',
    )
    t.match(groups.get('net-timeout'), { status: 'OPEN' })
  })
}

eachDialect(t, async (t, dialect) => {
  const php = phpDialectFor(dialect)
  t.test(`a PHP server's ${php} database, made here, imported into Outpost on ${dialect}`, async (t) => {
    const data = phpRows()
    const from = await makePhpDatabase(t, php, data, MYSQL_URL)
    const dbEnv = await freshDatabase(t, dialect)
    if (!isDatabaseServer(testConfig(dbEnv))) {
      const dry = await runImport(['--from', from, '--dry-run'], dbEnv)
      t.equal(dry.status, 0, `dry run exits 0: ${dry.stderr}`)
      t.same(dry.counts.users, [4, 3, 0, 1], 'dry run: would copy 3 users')
      t.notOk(existsSync(dbEnv.DB_PATH!), 'a dry run does not create the Outpost database')
    } else {
      const db = createDb(testConfig(dbEnv))
      await migrateToLatest(db, MIGRATIONS)
      await db.destroy()
      const before = await countAll(dbEnv)
      const dry = await runImport(['--from', from, '--dry-run'], dbEnv)
      t.equal(dry.status, 0, `dry run exits 0: ${dry.stderr}`)
      t.same(dry.counts.users, [4, 3, 0, 1])
      t.same(await countAll(dbEnv), before, 'the dry run wrote nothing')
    }

    const first = await runImport(['--from', from], dbEnv)
    t.equal(first.status, 0, `import exits 0: ${first.stderr}`)
    const expected: Record<string, [number, number, number, number]> = {
      users: [4, 3, 0, 1],
      leaderboard: [4, 3, 0, 1],
      cloud_saves: [3, 2, 0, 1],
      remote_configs: [3, 2, 0, 1],
      news: [2, 2, 0, 0],
      gift_codes: [3, 2, 0, 1],
      gift_code_redemptions: [1, 1, 0, 0],
      user_feedback: [1, 1, 0, 0],
      user_logs: [3, 2, 0, 1],
      crash_sessions: [2, 2, 0, 0],
      crash_reports: [2, 2, 0, 0],
      crash_groups: [2, 1, 1, 0],
    }
    for (const [table, counts] of Object.entries(expected)) t.same(first.counts[table], counts, `first run: ${table}`)
    t.match(first.stdout, /users [0-9a-f-]{36}: name "   " is not 1-\d+ characters/, 'the blank name is listed')
    t.match(first.stdout, /its user [0-9a-f-]{36} was not imported/, "the refused user's score is listed")
    t.match(first.stdout, /cloud_saves user [0-9a-f-]{36}: the save is empty \(null\)/)
    t.match(first.stdout, /gift_codes no spaces!: code "no spaces!" is not 4-32 characters/)
    t.match(first.stdout, /user_logs [0-9a-f-]{36}: user not-a-user does not exist/)
    t.notMatch(first.stdout, /Tables not read/, 'every table of the PHP schema is read (rate_limits by design not)')
    await checkRows(t, dbEnv, data)
    const afterFirst = await countAll(dbEnv)

    const second = await runImport(['--from', from], dbEnv)
    t.equal(second.status, 0)
    for (const [table, [rows, copied, existing, refused]] of Object.entries(expected)) {
      t.same(second.counts[table], [rows, 0, copied + existing, refused], `second run copies no ${table} again`)
    }
    t.same(await countAll(dbEnv), afterFirst, 'the second run changed no row count')

    // A dry run now finds every row there (each key refusing it inside the dry run's one transaction).
    const dryAgain = await runImport(['--from', from, '--dry-run'], dbEnv)
    t.equal(dryAgain.status, 0, `a dry run after the import exits 0: ${dryAgain.stderr}`)
    for (const [table, [rows, copied, existing, refused]] of Object.entries(expected)) {
      t.same(dryAgain.counts[table], [rows, 0, copied + existing, refused], `a dry run after: ${table}`)
    }
    t.same(await countAll(dbEnv), afterFirst, 'the dry run changed no row count')

    const ctx = await buildTestApp(t, dialect, { dbEnv })
    const signin = await ctx.call({
      method: 'POST',
      url: '/user-management/signin',
      payload: { type: 'ANONYMOUS', anonymousToken: data.alice.anonymous_token },
    })
    t.equal(signin.statusCode, 200, "the PHP server's anonymous token signs in")
    t.equal(signin.json().userId, data.alice.id)
    const top = await ctx.call({ method: 'GET', url: `/leaderboard/top?userId=${String(data.alice.id)}&limit=10` })
    t.same(
      top.json().entries.map((e: { username: string; score: number }) => [e.username, e.score]),
      [
        ['Bøb 🐉', 9_007_199_254_740_991],
        ['alice', 500],
        ['carol', 300],
      ],
    )
  })
})
