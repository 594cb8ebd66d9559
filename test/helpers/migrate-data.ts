// The legs of the migrate-data tests: a database made through the app, moved, compared and served.
import type { Test } from 'tap'
import { createConnection } from 'mysql2/promise'
import { buildTestApp, freshDatabase, serverUrl, testConfig, type Dialect, type TestApp } from './app.js'
import { mysqlConnection } from '../../bench/mysql.js'
import { createDb } from '../../db/index.js'
import { main } from '../../scripts/migrate-data.js'
import { normalize, TABLES } from '../../scripts/data-move.js'
import { fillEveryTable } from '../fixtures/every-table.js'
import { unity as saves } from '../fixtures/cloud-save.js'
import { redeemCode } from '../fixtures/gift-codes.js'
import { signInRequest } from '../fixtures/operators.js'

const MYSQL_URL = process.env.TEST_MYSQL_URL

interface Run {
  status: number
  stdout: string
  stderr: string
  /** Per table: [source rows, target rows], as printed. */
  counts: Map<string, [number, number]>
}

/** The command's own `main`, in this process, with its output kept. */
export async function migrateData(...args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const io = { out: { write: (s: string) => (stdout += s) }, err: { write: (s: string) => (stderr += s) } }
  const status = await main(args, io)
  const counts = new Map<string, [number, number]>()
  for (const line of stdout.split('\n')) {
    const m = /^([a-z_]+)\s+(\d+)\s+(\d+)$/.exec(line.trim())
    if (m && m[1] !== 'total') counts.set(m[1]!, [Number(m[2]), Number(m[3])])
  }
  return { status, stdout, stderr, counts }
}

/** The command-line form of a test database's settings. */
export function endpoint(env: Record<string, string>): string {
  if (env.DB_DRIVER === 'sqlite') return `sqlite:${env.DB_PATH}`
  const url = new URL(serverUrl(env.DB_DRIVER as Exclude<Dialect, 'sqlite'>)!)
  url.pathname = `/${env.DB_NAME}`
  return url.toString()
}

const dbEnvOf = (ctx: TestApp) => Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k.startsWith('DB_')))

export type Dump = Map<string, string[]>

/**
 * Every row of every table, read through the app's own Kysely set-up (not the move's readers), each
 * row as JSON of its values made comparable across drivers (bytes as hex), sorted.
 */
async function dump(env: Record<string, string>): Promise<Dump> {
  const db = createDb(testConfig(env))
  try {
    const tables: Dump = new Map()
    for (const table of TABLES) {
      const rows = (await db.selectFrom(table).selectAll().execute()) as Array<Record<string, unknown>>
      tables.set(
        table,
        rows
          .map((r) =>
            JSON.stringify(
              Object.keys(r)
                .sort()
                .map((k) => [k, normalize(r[k] as never)]),
            ),
          )
          .sort(),
      )
    }
    return tables
  } finally {
    await db.destroy()
  }
}

/** A stopped server's MySQL connections leave the server's process list a moment after they close. */
async function connectionsGone(env: Record<string, string>): Promise<void> {
  if (env.DB_DRIVER !== 'mysql') return
  const conn = await createConnection({ ...mysqlConnection(MYSQL_URL!), database: env.DB_NAME })
  try {
    const deadline = Date.now() + 10_000
    for (;;) {
      const [rows] = await conn.query(
        'select count(*) as n from information_schema.processlist where db = database() and id <> connection_id()',
      )
      if (Number((rows as Array<{ n: number }>)[0]!.n) === 0 || Date.now() > deadline) return
      await new Promise((r) => setTimeout(r, 50))
    }
  } finally {
    await conn.end()
  }
}

/** A column's value in a row of `dump`. */
const field = (row: string, name: string) =>
  (JSON.parse(row) as Array<[string, unknown]>).find(([k]) => k === name)?.[1]

function sameRows(t: Test, actual: Dump, expected: Dump, what: string) {
  for (const table of TABLES) t.same(actual.get(table), expected.get(table), `${what}: ${table} row for row`)
}

const other = (d: Dialect): Dialect => (MYSQL_URL ? (d === 'sqlite' ? 'mysql' : 'sqlite') : 'sqlite')

/**
 * A database with rows in every table, made on `from` through the app, moved to the other kind (or to a
 * new SQLite file without MySQL) and back, compared row for row after each move and served in between.
 */
export const moveBothWays = (t: Test, from: Dialect) =>
  t.test(`from ${from} to ${other(from)} and back, every table`, async (t) => {
    const to = other(from)
    const filled = await fillEveryTable(t, from)
    const sourceEnv = dbEnvOf(filled.ctx)
    const targetEnv = await freshDatabase(t, to)

    // While the server runs, the move refuses its database.
    const busy = await migrateData('--from', endpoint(sourceEnv), '--to', endpoint(targetEnv))
    t.equal(busy.status, 1, 'refused while the server has the database open')
    t.match(busy.stderr, /stop the server/)

    await filled.ctx.app.close()
    await connectionsGone(sourceEnv)
    const source = await dump(sourceEnv)
    for (const table of TABLES) t.ok(source.get(table)!.length > 0, `the source has rows in ${table}`)

    const moved = await migrateData('--from', endpoint(sourceEnv), '--to', endpoint(targetEnv))
    t.equal(moved.status, 0, `the move exits 0: ${moved.stderr}`)
    t.match(moved.stdout, /every table has the same number of rows on both sides/)
    t.same([...moved.counts.keys()], [...TABLES], 'the counts of every table are printed, in the order copied')
    for (const table of TABLES) {
      const n = source.get(table)!.length
      t.same(moved.counts.get(table), [n, n], `${table}: ${n} rows on both sides`)
    }
    const target = await dump(targetEnv)
    sameRows(t, target, source, `${from} to ${to}`)

    // A second move into the filled target is refused, and writes nothing.
    const again = await migrateData('--from', endpoint(sourceEnv), '--to', endpoint(targetEnv))
    t.equal(again.status, 1, 'a target with data is refused')
    t.match(again.stderr, /is not empty: users \(\d+ rows\)/)
    t.match(again.stderr, /Nothing was written/)
    sameRows(t, await dump(targetEnv), target, 'after the refused move')

    // The moved database, served: the same players, scores, saves and content.
    const served = await buildTestApp(t, to, { dbEnv: targetEnv, clock: filled.ctx.clock })
    const signin = await served.call({
      method: 'POST',
      url: '/user-management/signin',
      payload: { type: 'ANONYMOUS', anonymousToken: filled.anonymous.anonymousToken },
    })
    t.equal(signin.statusCode, 200, 'the anonymous token signs in')
    t.equal(signin.json().userId, filled.anonymous.userId, 'as the same user')
    t.equal(signin.json().username, 'Ælfrida ✓')
    const mail = await served.call({
      method: 'POST',
      url: '/user-management/signin',
      payload: { type: 'EMAIL', email: filled.email.email, password: filled.email.password },
    })
    t.equal(mail.statusCode, 200, 'the e-mail account signs in with its password')
    t.equal(mail.json().userId, filled.email.userId)
    const user = { ...filled.anonymous, accessToken: signin.json().accessToken as string }
    const top = await served.call({ method: 'GET', url: `/leaderboard/top?userId=${user.userId}&limit=10` })
    t.same(
      top.json().entries.map((e: { username: string; score: number }) => [e.username, e.score]),
      [
        ['bob', 900],
        ['Ælfrida ✓', 500],
      ],
      'the same default board',
    )
    const text = await saves.load(served, user)
    t.equal(text.json().saveData, filled.textSave, 'the text save, character for character')
    const secondId = filled.second.userId
    const rank = await served.call({ method: 'GET', url: `/leaderboards/Level%201/rank?userId=${secondId}` })
    t.equal(rank.json().score, 9_007_199_254_740_991, 'the largest score, exact')
    const bytes = await served.call({
      method: 'POST',
      url: '/cloud-save/load',
      headers: { accept: 'application/octet-stream' },
      payload: { userId: secondId },
    })
    t.same(bytes.rawPayload, filled.binarySave, 'the binary save, byte for byte')
    t.equal((await served.call({ method: 'GET', url: '/remote-config/motd' })).json().configValue, 'hi')
    t.equal((await redeemCode(served, user, 'SUMMER24')).json().success, false, 'a redeemed code stays redeemed')
    const exported = (await served.admin({ method: 'GET', url: `/users/${user.userId}/export` })).json()
    t.equal(exported.feedback.length, 1)
    t.equal(exported.logs[0].errorCode, 'E42')
    t.same(exported.crashReports[0].customKeys, { level: '3', build: '' })
    t.equal(exported.giftCodeRedemptions[0].code, 'SUMMER24')
    const op = await signInRequest(served, { username: filled.operator.username, password: filled.operator.password })
    t.equal(op.statusCode, 200, 'the operator signs in to the console')
    // The sign-in above was audited with the next id after the moved ones (a reused id would be refused).
    const audit = await served.admin({ method: 'GET', url: '/audit?limit=1' })
    t.equal(audit.statusCode, 200)
    const movedIds = source.get('audit_log')!.map((r) => Number(field(r, 'id')))
    t.equal(audit.json().items[0].action, 'sign-in')
    t.ok(audit.json().items[0].id > Math.max(...movedIds), 'the trail goes on after the moved ids')
    await served.app.close()
    await connectionsGone(targetEnv)

    // And back into a new database of the first kind.
    const backEnv = await freshDatabase(t, from)
    const before = await dump(targetEnv)
    const back = await migrateData('--from', endpoint(targetEnv), '--to', endpoint(backEnv))
    t.equal(back.status, 0, `the move back exits 0: ${back.stderr}`)
    sameRows(t, await dump(backEnv), before, `${to} back to ${from}`)
  })
