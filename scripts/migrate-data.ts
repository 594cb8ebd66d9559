// `npm run migrate-data -- --from <sqlite:FILE | mysql://...> --to <sqlite:FILE | mysql://...>`: moves
// every table of an Outpost database into another, empty one (SQLite to MySQL, or back).
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { openMysql, openSqlite, parseMysqlUrl, type TargetStore } from './data-stores.js'
import { checkSource, formatCounts, migrateTarget, moveData, refuseTarget, type MoveProgress } from './data-move.js'

export const USAGE = `Usage: npm run migrate-data -- --from <database> --to <database>

  <database> is sqlite:PATH (an Outpost SQLite file) or mysql://USER:PASS@HOST:3306/NAME.

Copies every table of an Outpost database into another one, with every row's id, bytes and times
as they are, then counts the rows of each table on both sides and prints them. The target is
migrated first (it may be a new, empty database) and must hold no data: the move refuses a target
with rows in any table, and writes nothing then.

Stop the Outpost server before the move and keep it stopped until it is done: rows written during
the move would not be carried over. A SQLite source that another process holds open (a running
server) is refused; so is a MySQL source that other connections are using.

Create a MySQL target first:
  CREATE DATABASE outpost CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;

Examples:
  npm run migrate-data -- --from sqlite:./data/outpost.db --to mysql://outpost:secret@127.0.0.1:3306/outpost
  npm run migrate-data -- --from mysql://outpost:secret@127.0.0.1:3306/outpost --to sqlite:./data/outpost.db

Then point the DB_ settings in .env at the target and start the server.`

type Endpoint = { kind: 'sqlite'; path: string } | { kind: 'mysql'; url: string }

export interface MoveArgs {
  from: Endpoint
  to: Endpoint
}

function endpoint(text: string, flag: string): Endpoint | string {
  if (/^mysql:\/\//i.test(text)) return { kind: 'mysql', url: text }
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '')
    if (path === '') return `${flag} sqlite: needs a file path (sqlite:./data/outpost.db)`
    return { kind: 'sqlite', path: resolve(path) }
  }
  return `${flag} ${text}: give sqlite:PATH or mysql://USER:PASS@HOST:PORT/NAME`
}

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
  return `${url.protocol}//${url.host}${url.pathname}`
}

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

/** The target, checked before the migrations run on it (a database with data gets nothing), then migrated. */
async function openTarget(to: Endpoint): Promise<TargetStore> {
  if (to.kind === 'sqlite') {
    if (existsSync(to.path)) {
      const before = openSqlite(to.path, 'target')
      await refuseTarget(before).finally(() => before.close())
    }
    await migrateTarget({ DB_DRIVER: 'sqlite', DB_PATH: to.path })
    return openSqlite(to.path, 'target')
  }
  const t = parseMysqlUrl(to.url)
  const before = await openMysql(t, 'target')
  await refuseTarget(before).finally(() => before.close())
  await migrateTarget({
    DB_DRIVER: 'mysql',
    DB_HOST: t.host,
    DB_PORT: t.port,
    DB_USER: t.user,
    DB_PASS: t.password,
    DB_NAME: t.database,
  })
  return openMysql(t, 'target')
}

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
  const source =
    args.from.kind === 'sqlite'
      ? openSqlite(args.from.path, 'source')
      : await openMysql(parseMysqlUrl(args.from.url), 'source')
  try {
    // Everything the source can be refused for is found before the target is touched.
    await checkSource(source)
    io.out.write(`Moving ${describe(args.from)} into ${describe(args.to)}\n`)
    const target = await openTarget(args.to)
    try {
      const started = Date.now()
      const results = await moveData(source, target, terminalProgress(io.out))
      if (io.out.isTTY) io.out.write('\n')
      io.out.write(`${formatCounts(results)}\n`)
      const wrong = results.filter((r) => r.source !== r.target)
      if (wrong.length > 0) {
        io.err.write(`Row counts differ in ${wrong.map((r) => r.table).join(', ')}: do not use the target\n`)
        return 1
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1)
      io.out.write(
        `Done in ${seconds} s: every table has the same number of rows on both sides.\n` +
          'Point the DB_ settings in .env at the target, then start the server.\n',
      )
      return 0
    } finally {
      await target.close()
    }
  } finally {
    await source.close()
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
