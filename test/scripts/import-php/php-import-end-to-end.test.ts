// End to end: the real horizOn Simple Server (PHP) fills its database through its own API, then
// `import:php` moves it into Outpost, and Outpost's API answers the same players with the same data.
// An extra check, run where the PHP server's source is at hand (PHP_SERVER_DIR): the import is covered
// without it by test/scripts/import-php/php-import-fixture.test.ts, on a PHP database that test builds itself.
import { existsSync } from 'node:fs'
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase, testConfig } from '../../helpers/app.js'
import { createDb, isDatabaseServer } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { MIGRATIONS } from '../../../app.js'
import { runImport } from '../../helpers/php-import.js'
import { phpMissing, sourceMissing, startPhpServer } from '../../helpers/php-server.js'
import { phpDialectFor } from '../../fixtures/php-database.js'

/** The Outpost rows that an import writes, counted straight from the database (a dry run must leave them). */
async function outpostCounts(dbEnv: Record<string, string>): Promise<Record<string, number>> {
  const db = createDb(testConfig(dbEnv))
  try {
    const tables = ['users', 'leaderboard_entries', 'cloud_saves', 'remote_configs', 'news', 'gift_codes']
    const more = ['gift_code_redemptions', 'user_feedback', 'user_logs', 'crash_sessions', 'crash_reports']
    const counts: Record<string, number> = {}
    for (const table of [...tables, ...more]) {
      const row = await db
        .selectFrom(table as 'users')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
      counts[table] = Number(row.n)
    }
    return counts
  } finally {
    await db.destroy()
  }
}

const missing = phpMissing()
if (sourceMissing) {
  t.comment(`Not run: the extra check against the real PHP server, as ${sourceMissing}`)
} else if (missing) {
  t.comment(`SKIPPED: the PHP import end-to-end test needs the real PHP server: ${missing}`)
  t.test('php import end to end', { skip: missing }, async () => {})
} else {
  // Into Outpost on every engine, from the PHP server on the same engine where it runs on it, else on SQLite.
  eachDialect(t, async (t, dialect) => {
    const driver = phpDialectFor(dialect)
    t.test(`from the PHP server on ${driver} into Outpost on ${dialect}`, async (t) => {
      const php = await startPhpServer(t, driver)

      // ---- the PHP server's data, made through its API -------------------------------------
      const signup = async (username: string) => {
        const r = await php.call('POST', '/user-management/signup', { type: 'ANONYMOUS', username })
        t.equal(r.status, 201, `PHP signup ${username}`)
        return r.body as { userId: string; anonymousToken: string }
      }
      const alice = await signup('alice')
      const bob = await signup('bob')
      const carol = await signup('carol')
      t.equal(
        (await php.call('POST', '/user-management/signin', { type: 'ANONYMOUS', anonymousToken: alice.anonymousToken }))
          .status,
        200,
      )
      for (const [user, score] of [
        [alice, 500],
        [bob, 900],
        [carol, 300],
      ] as const) {
        t.equal((await php.call('POST', '/leaderboard/submit', { userId: user.userId, score })).status, 200)
      }
      const phpRank = await php.call('GET', `/leaderboard/rank?userId=${alice.userId}`)
      t.same(phpRank.body, { position: 2, username: 'alice', score: 500 }, 'the PHP server ranks alice 2nd')
      const aliceSave = JSON.stringify({ level: 7, items: ['sword', 'shield'], name: 'Ælfrida ✓' })
      t.equal((await php.call('POST', '/cloud-save/save', { userId: alice.userId, saveData: aliceSave })).status, 200)
      t.equal((await php.call('POST', '/cloud-save/save', { userId: bob.userId, saveData: 'bob-save' })).status, 200)
      const fb = await php.call('POST', '/user-feedback/submit', {
        userId: alice.userId,
        title: 'Map freezes',
        message: 'On level 3',
        category: 'BUG',
        email: 'alice@example.com',
        deviceInfo: 'Pixel 8',
      })
      t.equal(fb.status, 200)
      t.equal(
        (
          await php.call('POST', '/user-logs/create', {
            userId: alice.userId,
            message: 'entered level 3',
            type: 'INFO',
          })
        ).status,
        201,
      )
      // The PHP server accepts any userId: this log names nobody, and cannot be mapped.
      const orphan = await php.call('POST', '/user-logs/create', {
        userId: 'not-a-user',
        message: 'orphan',
        type: 'WARN',
      })
      t.equal(orphan.status, 201)
      t.equal(
        (
          await php.call('POST', '/crash-reports/session', {
            sessionId: 'run-1',
            appVersion: '1.0.0',
            platform: 'android',
            userId: alice.userId,
          })
        ).status,
        201,
      )
      t.equal(
        (
          await php.call('POST', '/crash-reports/session', {
            sessionId: 'run-2',
            appVersion: '1.0.0',
            platform: 'android',
            userId: bob.userId,
          })
        ).status,
        201,
      )
      const crash = await php.call('POST', '/crash-reports/create', {
        type: 'CRASH',
        message: 'NullReferenceException',
        stackTrace: 'at Game.Update()',
        fingerprint: 'nre-update',
        appVersion: '1.0.0',
        sdkVersion: '2.0.0',
        platform: 'android',
        os: 'Android 14',
        deviceModel: 'Pixel 8',
        sessionId: 'run-1',
        userId: alice.userId,
        breadcrumbs: [{ timestamp: '2026-11-22T10:00:00Z', type: 'nav', message: 'opened map' }],
        customKeys: { level: '3' },
      })
      t.equal(crash.status, 201)
      // No admin API on the PHP server: remote config, news and gift codes are rows its operator inserts.
      await php.exec([
        "INSERT INTO remote_configs (config_key, config_value) VALUES ('max_level', '42'), ('motd', 'Welcome back')",
        "INSERT INTO news (id, title, message, language_code, published_at, created_at) VALUES ('0b6f3c5e-8a1e-4c2b-9d3e-4f5a6b7c8d9e', 'Season 2', 'New maps', 'en', '2026-11-01 12:00:00', '2026-11-01 12:00:00')",
        "INSERT INTO gift_codes (id, code, reward_type, reward_data, max_redemptions, current_redemptions, created_at) VALUES ('5d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d', 'summer24', 'coins', '{\"coins\":100}', 10, 0, '2026-11-01 12:00:00')",
        "INSERT INTO gift_codes (id, code, reward_type, reward_data, max_redemptions, current_redemptions, created_at) VALUES ('6e2d3c4b-5f6a-4b7c-9d8e-0f1a2b3c4d5e', 'no spaces!', 'coins', 'x', 1, 0, '2026-11-01 12:00:00')",
      ])
      const redeem = await php.call('POST', '/gift-codes/redeem', { userId: alice.userId, code: 'summer24' })
      t.equal(redeem.body.success, true, 'alice redeemed summer24 on the PHP server')

      // ---- dry run, import, second import -----------------------------------------------------
      const dbEnv = await freshDatabase(t, dialect)
      if (!isDatabaseServer(testConfig(dbEnv))) {
        const dry = await runImport(['--from', php.from, '--dry-run'], dbEnv)
        t.equal(dry.status, 0, `dry run exits 0: ${dry.stderr}`)
        t.match(dry.stdout, /Dry run: nothing was written/)
        t.same(dry.counts.users, [3, 3, 0, 0], 'dry run: would copy 3 users')
        t.notOk(existsSync(dbEnv.DB_PATH!), 'a dry run does not even create the Outpost database')
      } else {
        const refusedDry = await runImport(['--from', php.from, '--dry-run'], dbEnv)
        t.equal(refusedDry.status, 1, `a dry run into an unmigrated ${dialect} database stops`)
        t.match(refusedDry.stderr, /npm run migrate/)
        const db = createDb(testConfig(dbEnv))
        await migrateToLatest(db, MIGRATIONS)
        await db.destroy()
        const before = await outpostCounts(dbEnv)
        const dry = await runImport(['--from', php.from, '--dry-run'], dbEnv)
        t.equal(dry.status, 0, `dry run exits 0: ${dry.stderr}`)
        t.same(dry.counts.users, [3, 3, 0, 0], 'dry run: would copy 3 users')
        t.same(await outpostCounts(dbEnv), before, 'the dry run wrote nothing')
      }

      const first = await runImport(['--from', php.from], dbEnv)
      t.equal(first.status, 0, `import exits 0: ${first.stderr}`)
      const expected: Record<string, [number, number, number, number]> = {
        users: [3, 3, 0, 0],
        leaderboard: [3, 3, 0, 0],
        cloud_saves: [2, 2, 0, 0],
        remote_configs: [2, 2, 0, 0],
        news: [1, 1, 0, 0],
        gift_codes: [2, 1, 0, 1],
        gift_code_redemptions: [1, 1, 0, 0],
        user_feedback: [1, 1, 0, 0],
        user_logs: [2, 1, 0, 1],
        crash_sessions: [2, 2, 0, 0],
        crash_reports: [1, 1, 0, 0],
      }
      for (const [table, counts] of Object.entries(expected)) t.same(first.counts[table], counts, `first run: ${table}`)
      t.match(first.stdout, /gift_codes no spaces!: code "no spaces!" is not 4-32 characters/, 'the bad code is listed')
      t.match(first.stdout, /user_logs [0-9a-f-]{36}: user not-a-user does not exist/, 'the orphan log is listed')
      const afterFirst = await outpostCounts(dbEnv)

      const second = await runImport(['--from', php.from], dbEnv)
      t.equal(second.status, 0)
      for (const [table, [rows, copied, , refused]] of Object.entries(expected)) {
        t.same(second.counts[table], [rows, 0, copied, refused], `second run copies no ${table} again`)
      }
      t.same(await outpostCounts(dbEnv), afterFirst, 'the second run changed no row count')

      const dryAgain = await runImport(['--from', php.from, '--dry-run'], dbEnv)
      t.equal(dryAgain.status, 0, `a dry run after the import exits 0: ${dryAgain.stderr}`)
      t.equal(dryAgain.counts.users?.[1], 0, 'a dry run after the import would copy nothing')
      t.same(await outpostCounts(dbEnv), afterFirst)

      // ---- Outpost answers the same players the same way --------------------------------------
      const ctx = await buildTestApp(t, dialect, { dbEnv })
      const signin = await ctx.call({
        method: 'POST',
        url: '/user-management/signin',
        payload: { type: 'ANONYMOUS', anonymousToken: alice.anonymousToken },
      })
      t.equal(signin.statusCode, 200, 'the cached PHP anonymous token signs in')
      t.equal(signin.json().userId, alice.userId, 'as the same user')
      t.equal(signin.json().username, 'alice')
      const rank = await ctx.call({ method: 'GET', url: `/leaderboard/rank?userId=${alice.userId}` })
      t.equal(rank.json().position, 2, 'same rank')
      t.equal(rank.json().score, 500, 'same score')
      const top = await ctx.call({ method: 'GET', url: `/leaderboard/top?userId=${alice.userId}&limit=10` })
      t.same(
        top.json().entries.map((e: { username: string; score: number }) => [e.username, e.score]),
        [
          ['bob', 900],
          ['alice', 500],
          ['carol', 300],
        ],
        'same board',
      )
      const load = await ctx.call({ method: 'POST', url: '/cloud-save/load', payload: { userId: alice.userId } })
      t.equal(load.json().found, true)
      t.equal(load.json().saveData, aliceSave, 'same save, byte for byte')
      const config = await ctx.call({ method: 'GET', url: '/remote-config/max_level' })
      t.equal(config.json().configValue, '42')
      const news = await ctx.call({ method: 'GET', url: '/news?languageCode=en' })
      t.same(
        news.json().map((n: { title: string }) => n.title),
        ['Season 2'],
      )
      const again = await ctx.call({
        method: 'POST',
        url: '/gift-codes/redeem',
        payload: { userId: alice.userId, code: 'summer24' },
      })
      t.equal(again.json().success, false, 'alice cannot redeem summer24 twice across servers')
      const bobRedeem = await ctx.call({
        method: 'POST',
        url: '/gift-codes/redeem',
        payload: { userId: bob.userId, code: 'SUMMER24' },
      })
      t.equal(bobRedeem.json().success, true)
      t.equal(bobRedeem.json().giftData, '{"coins":100}')
      const codes = await ctx.admin({ method: 'GET', url: '/gift-codes' })
      t.equal(codes.json().items.find((c: { code: string }) => c.code === 'SUMMER24').redemptionCount, 2)

      const exported = await ctx.admin({ method: 'GET', url: `/users/${alice.userId}/export` })
      t.equal(exported.statusCode, 200)
      const doc = exported.json()
      t.equal(doc.feedback[0].title, 'Map freezes')
      t.equal(doc.logs.length, 1)
      t.equal(doc.crashReports[0].message, 'NullReferenceException')
      t.same(doc.crashReports[0].customKeys, { level: '3' })
      t.equal(doc.giftCodeRedemptions[0].code, 'SUMMER24')
      const stats = await ctx.admin({ method: 'GET', url: '/crash-reports/stats' })
      t.equal(stats.statusCode, 200)
      t.match(JSON.stringify(stats.json()), /"sessions":2/, 'both crash sessions counted')

      // A new player signs up on Outpost beside the imported ones.
      const newcomer = await ctx.call({ method: 'POST', url: '/user-management/signup', payload: { username: 'dave' } })
      t.equal(newcomer.statusCode, 201)
    })
  })
}
