// `npm run migrate-data -- --from <database> --to <database>`: moves every table of an Outpost database
// into another, empty one, each a SQLite file or a MySQL or PostgreSQL database, in any direction; and
// every game's database with it, into the target's database of the same game.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ENGINES, type Engine } from '../../db/engines/index.js'
import { gameFile, gameSchema } from '../../db/games.js'
import type { Config } from '../../config.js'
import { isMissingDatabase, openMysql, openSqlite, type ServerTarget, type TargetStore } from './stores.js'
import { createTargetGame, gamesOf } from './games.js'
import { openPostgres } from './postgres-store.js'
import { checkSource, formatCounts, migrateTarget, moveData, refuseTarget, type MoveProgress } from './move.js'

/** Printed for --help and with every argument error. */
export const USAGE = `Usage: npm run migrate-data -- --from <database> --to <database>

  <database> is sqlite:PATH (an Outpost SQLite file), mysql://USER:PASS@HOST:3306/NAME
  or postgres://USER:PASS@HOST:5432/NAME (postgresql:// too). A server's URL may end in
  ?ssl=require (TLS, the certificate not checked) or ?ssl=verify (checked against the system's
  authorities, or the PEM file of &sslca=PATH), as DB_SSL and DB_SSL_CA do for the server.

Copies every table of an Outpost database into another one, with every row's id, bytes and times
as they are, then counts the rows of each table on both sides and prints them. The target is
migrated first (it may be a new, empty database) and must hold no data: the move refuses a target
with rows in any table, and writes nothing then. Every game of the server moves with it: each game's
own database (SQLite: the file in the folder beside the database's, name.games/<id>.db; MySQL: the
database NAME__<id>; PostgreSQL: the schema game_<id>) into the target's database of that game,
made and migrated by the move.

Stop the Outpost server before the move and keep it stopped until it is done: rows written during
the move would not be carried over. A SQLite source that another process holds open (a running
server) is refused; so is a MySQL or PostgreSQL source that other connections are using.

Create a MySQL target first:
  CREATE DATABASE outpost CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
or a PostgreSQL one:
  CREATE DATABASE outpost ENCODING 'UTF8' TEMPLATE template0;

Examples:
  npm run migrate-data -- --from sqlite:./data/outpost.db --to mysql://outpost:secret@127.0.0.1:3306/outpost
  npm run migrate-data -- --from sqlite:./data/outpost.db --to postgres://outpost:secret@127.0.0.1:5432/outpost
  npm run migrate-data -- --from mysql://outpost:secret@127.0.0.1:3306/outpost --to sqlite:./data/outpost.db

Then point the DB_ settings in .env at the target and start the server.`

/** A kind of database server: its engine (default port, the settings its migrations run with) and its store. */
interface Server {
  engine: Engine
  open(target: ServerTarget, role: 'source' | 'target'): Promise<TargetStore>
}

/**
 * The servers the move reaches, by the scheme of their URLs. The command line names a server's
 * database by URL, so the scheme is what tells the engines apart here, the one place in the move.
 */
const SCHEMES: Record<string, Server> = {
  'mysql:': { engine: ENGINES.mysql, open: openMysql },
  'postgres:': { engine: ENGINES.postgres, open: openPostgres },
  'postgresql:': { engine: ENGINES.postgres, open: openPostgres },
}

type Endpoint = { kind: 'sqlite'; path: string } | { kind: 'server'; server: Server; target: ServerTarget; url: string }

/** The server database of a URL, or a string saying what is wrong with it. */
function serverEndpoint(url: string): Endpoint | string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return `${url} is not a URL`
  }
  const server = SCHEMES[parsed.protocol.toLowerCase()]
  if (!server) return `${parsed.protocol} is not a database this move knows (${Object.keys(SCHEMES).join(' ')})`
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''))
  if (!database || database.includes('/')) {
    const example = `${parsed.protocol}//USER:PASS@HOST:${server.engine.defaultPort}/NAME`
    return `${parsed.protocol}//${parsed.host} names no database: ${example}`
  }
  const ssl = parsed.searchParams.get('ssl') ?? 'off'
  if (ssl !== 'off' && ssl !== 'require' && ssl !== 'verify') {
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}: ssl=${ssl} is not off, require or verify`
  }
  const target = {
    host: parsed.hostname,
    port: Number(parsed.port || server.engine.defaultPort),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    database,
    tls: { DB_SSL: ssl, DB_SSL_CA: parsed.searchParams.get('sslca') ?? '' } as const,
  }
  return { kind: 'server', server, target, url }
}

/** The move's two databases once parsed. */
export interface MoveArgs {
  from: Endpoint
  to: Endpoint
}

function endpoint(text: string, flag: string): Endpoint | string {
  if (/^[a-z]+:\/\//i.test(text)) {
    const server = serverEndpoint(text)
    return typeof server === 'string' ? `${flag} ${server}` : server
  }
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    if (path === '') return `${flag} sqlite: needs a file path (sqlite:./data/outpost.db)`
    return { kind: 'sqlite', path: resolve(path) }
  }
  return `${flag} ${text}: give sqlite:PATH, mysql://USER:PASS@HOST:PORT/NAME or postgres://USER:PASS@HOST:PORT/NAME`
}

/** The database of the game `game` (not `default`) beside the default game's database `e`. */
function gameEndpoint(e: Endpoint, game: string): Endpoint {
  if (e.kind === 'sqlite') return { kind: 'sqlite', path: gameFile(e.path, game) }
  const schema = gameSchema({ DB_DRIVER: e.server.engine.name, DB_NAME: e.target.database }, game)!
  return { ...e, target: { ...e.target, game: { id: game, schema } } }
}

/** The store of a database the command line names (`sqlite:PATH` or a server's URL); `game` for a game's. */
export async function openEndpoint(text: string, role: 'source' | 'target', game?: string): Promise<TargetStore> {
  const e = endpoint(text, text)
  if (typeof e === 'string') throw new Error(e)
  return open(game ? gameEndpoint(e, game) : e, role)
}

const open = (e: Endpoint, role: 'source' | 'target') =>
  e.kind === 'sqlite' ? openSqlite(e.path, role) : e.server.open(e.target, role)

/** The arguments or the message saying what is wrong with them, kept apart from main for tests. */
export function parseArgs(argv: string[]): MoveArgs | string {
  const given: Record<string, string | undefined> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--help' || arg === '-h') return USAGE
    const match = /^--(from|to)(?:=(.*))?$/.exec(arg)
    if (!match) return `Unknown argument "${arg}".\n\n${USAGE}`
    given[match[1]!] = match[2] ?? argv[++i]
  }
  if (!given.from || !given.to) return `--from and --to are both required.\n\n${USAGE}`
  const from = endpoint(given.from, '--from')
  if (typeof from === 'string') return from
  const to = endpoint(given.to, '--to')
  if (typeof to === 'string') return to
  if (from.kind === 'sqlite' && to.kind === 'sqlite' && from.path === to.path) {
    return '--from and --to are the same file'
  }
  return { from, to }
}

const describe = (e: Endpoint) => {
  if (e.kind === 'sqlite') return `sqlite:${e.path}`
  const url = new URL(e.url)
  const game = e.target.game ? ` (${e.target.game.schema})` : ''
  return `${url.protocol}//${url.host}${url.pathname}${game}`
}

/** Where the command writes, handed in so tests read its output. */
export interface Output {
  out: { write(text: string): unknown; isTTY?: boolean }
  err: { write(text: string): unknown }
}

function terminalProgress(stream: Output['out']): MoveProgress | undefined {
  if (!stream.isTTY) return undefined
  let name = ''
  let total = 0
  return {
    table(table, rows) {
      if (name) stream.write('\n')
      name = table
      total = rows
      stream.write(`\r${name.padEnd(24)} 0/${total}`)
    },
    rows(done) {
      stream.write(`\r${name.padEnd(24)} ${done}/${total}`)
    },
  }
}

/** The settings of the target's default game's database, for its migrations and its games'. */
function targetSettings(to: Endpoint): Partial<Config> {
  if (to.kind === 'sqlite') return { DB_DRIVER: 'sqlite', DB_PATH: to.path }
  const t = to.target
  return {
    DB_DRIVER: to.server.engine.name,
    DB_HOST: t.host,
    DB_PORT: t.port,
    DB_USER: t.user,
    DB_PASS: t.password,
    DB_NAME: t.database,
    ...t.tls,
  }
}

/** Refuses a target (a game's too) that holds data, before anything is written; one not made yet passes. */
async function checkTarget(to: Endpoint): Promise<void> {
  if (to.kind === 'sqlite' && !existsSync(to.path)) return
  let before: TargetStore
  try {
    before = await open(to, 'target')
  } catch (error) {
    if (to.kind === 'server' && to.target.game && isMissingDatabase(error)) return
    throw error
  }
  await refuseTarget(before).finally(() => before.close())
}

/** The target, checked before the migrations run on it (a database with data gets nothing), then migrated. */
async function openTarget(to: Endpoint): Promise<TargetStore> {
  await checkTarget(to)
  await migrateTarget(targetSettings(to))
  return open(to, 'target')
}

/** The migrate-data command's entry point; its exit code says whether the move happened. */
export async function main(argv: string[], io: Output = { out: process.stdout, err: process.stderr }): Promise<number> {
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    const help = args === USAGE
    ;(help ? io.out : io.err).write(`${args}\n`)
    return help ? 0 : 2
  }
  if (args.from.kind === 'sqlite' && !existsSync(args.from.path)) {
    io.err.write(`No such file: ${args.from.path} (--from names the Outpost SQLite file, DB_PATH in .env)\n`)
    return 2
  }
  try {
    return await move(args, io)
  } catch (error) {
    io.err.write(`Move failed: ${(error as Error).message}\n`)
    return 1
  }
}

async function move(args: MoveArgs, io: Output): Promise<number> {
  const source = await open(args.from, 'source')
  let games: string[]
  try {
    // Everything the source can be refused for is found before the target is touched: the default
    // game's database, then each other game's.
    await checkSource(source)
    games = await gamesOf(source)
    for (const game of games) {
      const store = await open(gameEndpoint(args.from, game), 'source')
      await checkSource(store)
        .catch((error: Error) => {
          throw new Error(`game ${game}: ${error.message}`, { cause: error })
        })
        .finally(() => store.close())
    }
    for (const game of games) await checkTarget(gameEndpoint(args.to, game))
    const count = games.length ? ` and its ${games.length} other game(s), ${games.join(', ')},` : ''
    io.out.write(`Moving ${describe(args.from)}${count} into ${describe(args.to)}\n`)
    const moved = await moveOne(source, await openTarget(args.to), io)
    if (!moved) return 1
  } finally {
    await source.close()
  }
  const started = Date.now()
  for (const game of games) {
    const from = gameEndpoint(args.from, game)
    const to = gameEndpoint(args.to, game)
    io.out.write(`\nGame ${game}: ${describe(from)} into ${describe(to)}\n`)
    await createTargetGame(targetSettings(args.to), game)
    const gameSource = await open(from, 'source')
    try {
      const moved = await moveOne(gameSource, await open(to, 'target'), io).catch((error: Error) => {
        throw new Error(
          `game ${game}: ${error.message}. The target holds the games moved before it: move again into new, ` +
            "empty databases (each game's too)",
          { cause: error },
        )
      })
      if (!moved) return 1
    } finally {
      await gameSource.close()
    }
  }
  if (games.length) io.out.write(`\nEvery game moved (the games in ${((Date.now() - started) / 1000).toFixed(1)} s).\n`)
  io.out.write('Point the DB_ settings in .env at the target, then start the server.\n')
  return 0
}

/** Moves one game's database into the target's (closed after), printing the counts; false when they differ. */
async function moveOne(source: TargetStore, target: TargetStore, io: Output): Promise<boolean> {
  try {
    const started = Date.now()
    const results = await moveData(source, target, terminalProgress(io.out))
    if (io.out.isTTY) io.out.write('\n')
    io.out.write(`${formatCounts(results)}\n`)
    const wrong = results.filter((r) => r.source !== r.target)
    if (wrong.length > 0) {
      io.err.write(`Row counts differ in ${wrong.map((r) => r.table).join(', ')}: do not use the target\n`)
      return false
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    io.out.write(`Done in ${seconds} s: every table has the same number of rows on both sides.\n`)
    return true
  } finally {
    await target.close()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`Move failed: ${(error as Error).message}\n`)
      process.exit(1)
    },
  )
}
