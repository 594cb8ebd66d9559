// The legs of the migrate-data tests: a database made through the app, with a second game beside the
// default one, moved from engine to engine, every game's rows compared after each move, each copy served.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { Test } from 'tap'
import { buildTestApp, freshDatabase, testConfig, type Dialect, type TestApp } from './app.js'
import { addGame } from './second-game.js'
import { createDb } from '../../db/index.js'
import { closeGameDb, DEFAULT_GAME, openGameDb } from '../../db/games.js'
import { exportAccount, importAnonymousUser } from '../../features/users/service.js'
import { importConfig } from '../../features/remote-config/service.js'
import { main, openEndpoint } from '../../scripts/migrate-data/index.js'
import { checkOrder, normalize, TABLES } from '../../scripts/migrate-data/move.js'
import { InUseError } from '../../scripts/migrate-data/stores.js'
import { fillEveryTable, type Filled } from '../fixtures/every-table.js'
import { unity as saves } from '../fixtures/cloud-save.js'
import { redeemCode } from '../fixtures/gift-codes.js'
import { signInRequest } from '../fixtures/operators.js'

interface Run {
  status: number
  stdout: string
  stderr: string
  /** Per table: [source rows, target rows], as printed for the default game. */
  counts: Map<string, [number, number]>
  /** The same, for each other game (printed after its `Game <id>:` line). */
  games: Map<string, Map<string, [number, number]>>
}

/** The command's own `main`, in this process, with its output kept. */
export async function migrateData(...args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const io = { out: { write: (s: string) => (stdout += s) }, err: { write: (s: string) => (stderr += s) } }
  const status = await main(args, io)
  const counts = new Map<string, [number, number]>()
  const games = new Map<string, Map<string, [number, number]>>()
  let current = counts
  for (const line of stdout.split('\n')) {
    const game = /^Game ([a-z0-9-]+): /.exec(line)
    if (game) games.set(game[1]!, (current = new Map()))
    const m = /^([a-z_]+)\s+(\d+)\s+(\d+)$/.exec(line.trim())
    if (m && m[1] !== 'total') current.set(m[1]!, [Number(m[2]), Number(m[3])])
  }
  return { status, stdout, stderr, counts, games }
}

/** The command-line form of a test database's settings (a server's URL scheme is its DB_DRIVER). */
export function endpoint(env: Record<string, string>): string {
  if (env.DB_DRIVER === 'sqlite') return `sqlite:${env.DB_PATH}`
  const user = `${encodeURIComponent(env.DB_USER ?? '')}:${encodeURIComponent(env.DB_PASS ?? '')}`
  return `${env.DB_DRIVER}://${user}@${env.DB_HOST}:${env.DB_PORT}/${env.DB_NAME}`
}

const dbEnvOf = (ctx: TestApp) => Object.fromEntries(Object.entries(ctx.env).filter(([k]) => k.startsWith('DB_')))

export type Dump = Map<string, string[]>

/**
 * Every row of every table, read through the app's own Kysely set-up (not the move's readers), each
 * row as JSON of its values made comparable across drivers (bytes as hex), sorted.
 */
async function dump(env: Record<string, string>, game = DEFAULT_GAME): Promise<Dump> {
  const config = testConfig(env)
  const base = createDb(config)
  // Used once, so that destroy() closes it (Kysely closes only a handle that was used).
  await sql`select 1`.execute(base)
  const db = openGameDb(base, config, game)
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
    await closeGameDb(db)
    await base.destroy()
  }
}

/** The game beside `default` in the moved databases. */
const GAME = 'second'

/** A player and a config in the second game, written into its database through the owners' services. */
async function fillSecondGame(t: Test, ctx: TestApp) {
  const game = await addGame(ctx, GAME)
  const player = { id: randomUUID(), name: 'Gamma ✓', anonymousToken: randomUUID(), createdAt: ctx.clock.now() }
  t.match(await importAnonymousUser(game.db, player), { status: 'copied' })
  t.match(await importConfig(game.db, 'motd', 'second game', ctx.clock.now()), { status: 'copied' })
  return { key: game.key, player }
}

/**
 * A stopped server's connections leave a database server's list of clients a moment after they close:
 * until then the move would take the database for one in use.
 */
async function connectionsGone(env: Record<string, string>): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    try {
      await (await openEndpoint(endpoint(env), 'source')).close()
      return
    } catch (error) {
      if (!(error instanceof InUseError) || Date.now() > deadline) return
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

/** A column's value in a row of `dump`. */
const field = (row: string, name: string) =>
  (JSON.parse(row) as Array<[string, unknown]>).find(([k]) => k === name)?.[1]

function sameRows(t: Test, actual: Dump, expected: Dump, what: string) {
  for (const table of TABLES) t.same(actual.get(table), expected.get(table), `${what}: ${table} row for row`)
}

/**
 * A database with rows in every table, made through the app on `path[0]`, moved along `path` (each move
 * into a new database), every row of every table compared with the first database's after each move.
 * Then each copy is served (after the moves, as serving writes: sign-ins, their audit entries): the same
 * players, scores, saves and content, and ids that go on after the moved ones.
 */
export const moveAlong = (t: Test, path: readonly Dialect[]) =>
  t.test(`${path.join(' to ')}, every table`, async (t) => {
    const filled = await fillEveryTable(t, path[0]!)
    const firstEnv = dbEnvOf(filled.ctx)
    const envs = [firstEnv]
    const second = await fillSecondGame(t, filled.ctx)

    // While the server runs, the move refuses its database.
    const busy = await migrateData('--from', endpoint(firstEnv), '--to', 'sqlite:/nonexistent/outpost.db')
    t.equal(busy.status, 1, 'refused while the server has the database open')
    t.match(busy.stderr, /stop the server/)

    await filled.ctx.app.close()
    await connectionsGone(firstEnv)
    const original = await dump(firstEnv)
    for (const table of TABLES) t.ok(original.get(table)!.length > 0, `the source has rows in ${table}`)
    const originalGame = await dump(firstEnv, GAME)
    t.equal(originalGame.get('users')!.length, 1, 'the second game has its player')

    for (let i = 1; i < path.length; i++) {
      const hop = `${path[i - 1]} to ${path[i]}`
      const sourceEnv = envs[i - 1]!
      const targetEnv = await freshDatabase(t, path[i]!)
      const started = Date.now()
      const moved = await migrateData('--from', endpoint(sourceEnv), '--to', endpoint(targetEnv))
      t.equal(moved.status, 0, `${hop}: the move exits 0: ${moved.stderr}`)
      t.comment(`${hop}: moved in ${Date.now() - started} ms`)
      t.match(moved.stdout, /every table has the same number of rows on both sides/)
      const printed = [...moved.counts.keys()]
      t.same([...printed].sort(), [...TABLES].sort(), 'the counts of every table are printed')
      const store = await openEndpoint(endpoint(targetEnv), 'target')
      const foreignKeys = await store.foreignKeys().finally(() => store.close())
      t.doesNotThrow(() => checkOrder(foreignKeys, printed), `${hop}: copied in the order the foreign keys need`)
      for (const table of TABLES) {
        const n = original.get(table)!.length
        t.same(moved.counts.get(table), [n, n], `${hop}: ${table}: ${n} rows on both sides`)
      }
      const target = await dump(targetEnv)
      sameRows(t, target, original, hop)
      await nextIds(t, targetEnv, original, hop)
      // Every game but the default is moved and named: the second one, and those the fixture made.
      const others = [...moved.games.keys()]
      t.equal(others.length, original.get('games')!.length - 1, `${hop}: every other game is moved`)
      t.ok(others.includes(GAME), `${hop}: the second game among them`)
      t.match(
        moved.stdout,
        `and its ${others.length} other game(s), ${others.join(', ')}, into`,
        `${hop}: the games are named`,
      )
      const gameCounts = moved.games.get(GAME)
      t.same([...(gameCounts?.keys() ?? [])].sort(), [...TABLES].sort(), `${hop}: the second game's counts printed`)
      for (const table of TABLES) {
        const n = originalGame.get(table)!.length
        t.same(gameCounts?.get(table), [n, n], `${hop}: second game: ${table}: ${n} rows on both sides`)
      }
      sameRows(t, await dump(targetEnv, GAME), originalGame, `${hop}, second game`)

      // A second move into the filled target is refused, and writes nothing.
      const again = await migrateData('--from', endpoint(sourceEnv), '--to', endpoint(targetEnv))
      t.equal(again.status, 1, `${hop}: a target with data is refused`)
      t.match(again.stderr, /is not empty: (\w+ \(\d+ rows\)(, )?)+\. Nothing was written/)
      sameRows(t, await dump(targetEnv), target, `${hop}, after the refused move`)
      envs.push(targetEnv)
    }

    for (let i = 1; i < path.length; i++) await serve(t, filled, path[i]!, envs[i]!, original, second)
  })

/** The tables whose ids the database hands out: the next id of each comes after every moved one. */
const NUMBERED = ['audit_log', 'webhook_attempts'] as const

async function nextIds(t: Test, env: Record<string, string>, moved: Dump, hop: string) {
  const store = await openEndpoint(endpoint(env), 'target')
  try {
    const last = await store.autoIds()
    for (const table of NUMBERED) {
      const ids = moved.get(table)!.map((r) => Number(field(r, 'id')))
      t.ok(last.get(table)! >= Math.max(...ids), `${hop}: ${table} numbers on after id ${Math.max(...ids)}`)
    }
  } finally {
    await store.close()
  }
}

/** The moved database `env`, served: the same players, scores, saves and content as the app made. */
async function serve(
  t: Test,
  filled: Filled,
  dialect: Dialect,
  env: Record<string, string>,
  moved: Dump,
  second: Awaited<ReturnType<typeof fillSecondGame>>,
) {
  const served = await buildTestApp(t, dialect, { dbEnv: env, clock: filled.ctx.clock })
  const what = (text: string) => `${dialect} copy: ${text}`
  await served.app.ready()
  t.equal(served.app.games.forKey(second.key)?.id, GAME, what("the second game's key is its"))
  const gameDb = served.app.games.get(GAME)!.db
  t.match(await exportAccount(gameDb, second.player.id), { username: 'Gamma ✓' }, what("the second game's player"))
  t.equal(await exportAccount(served.app.db, second.player.id), undefined, what('who is not in the default game'))
  const signin = await served.call({
    method: 'POST',
    url: '/user-management/signin',
    payload: { type: 'ANONYMOUS', anonymousToken: filled.anonymous.anonymousToken },
  })
  t.equal(signin.statusCode, 200, what('the anonymous token signs in'))
  t.equal(signin.json().userId, filled.anonymous.userId, 'as the same user')
  t.equal(signin.json().username, 'Ælfrida ✓')
  const mail = await served.call({
    method: 'POST',
    url: '/user-management/signin',
    payload: { type: 'EMAIL', email: filled.email.email, password: filled.email.password },
  })
  t.equal(mail.statusCode, 200, what('the e-mail account signs in with its password'))
  t.equal(mail.json().userId, filled.email.userId)
  const user = { ...filled.anonymous, accessToken: signin.json().accessToken as string }
  const top = await served.call({ method: 'GET', url: `/leaderboard/top?userId=${user.userId}&limit=10` })
  t.same(
    top.json().entries.map((e: { username: string; score: number }) => [e.username, e.score]),
    [
      ['bob', 900],
      ['Ælfrida ✓', 500],
    ],
    what('the same default board'),
  )
  const text = await saves.load(served, user)
  t.equal(text.json().saveData, filled.textSave, what('the text save, character for character'))
  const secondId = filled.second.userId
  const rank = await served.call({ method: 'GET', url: `/leaderboards/Level%201/rank?userId=${secondId}` })
  t.equal(rank.json().score, 9_007_199_254_740_991, what('the largest score, exact'))
  const bytes = await served.call({
    method: 'POST',
    url: '/cloud-save/load',
    headers: { accept: 'application/octet-stream' },
    payload: { userId: secondId },
  })
  t.same(bytes.rawPayload, filled.binarySave, what('the binary save, byte for byte'))
  t.equal((await served.call({ method: 'GET', url: '/remote-config/motd' })).json().configValue, 'hi')
  t.equal((await redeemCode(served, user, 'SUMMER24')).json().success, false, what('a redeemed code stays redeemed'))
  const exported = (await served.admin({ method: 'GET', url: `/users/${user.userId}/export` })).json()
  t.equal(exported.feedback.length, 1)
  t.equal(exported.logs[0].errorCode, 'E42')
  t.same(exported.crashReports[0].customKeys, { level: '3', build: '' })
  t.equal(exported.giftCodeRedemptions[0].code, 'SUMMER24')
  const op = await signInRequest(served, { username: filled.operator.username, password: filled.operator.password })
  t.equal(op.statusCode, 200, what('the operator signs in to the console'))
  // The sign-in above was audited with the next id after the moved ones (a reused id would be refused).
  const audit = await served.admin({ method: 'GET', url: '/audit?limit=1' })
  t.equal(audit.statusCode, 200)
  const movedIds = moved.get('audit_log')!.map((r) => Number(field(r, 'id')))
  t.equal(audit.json().items[0].action, 'sign-in')
  t.ok(audit.json().items[0].id > Math.max(...movedIds), what('the audit trail goes on after the moved ids'))

  // While it serves, a move from it is refused.
  const busy = await migrateData('--from', endpoint(env), '--to', 'sqlite:/nonexistent/outpost.db')
  t.equal(busy.status, 1, what('a move from a served database is refused'))
  t.match(busy.stderr, /stop the server/)
  await served.app.close()
}
