// `npm run import:php -- --from <sqlite file | mysql URL> [--game <id>] [--dry-run]`: moves a horizOn
// Simple Server's data into a game of the Outpost server configured in .env (`default` unless named;
// its database created and migrated when needed).
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Migrator, type Kysely } from 'kysely'
import SQLite from 'better-sqlite3'
import { describeConfigError, loadConfig, type Config } from '../../config.js'
import { createDb, isDatabaseServer, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import type { Db } from '../../db/types.js'
import { DEFAULT_GAME, GAME_ID_PATTERN } from '../../db/games.js'
import { gameTarget, type Target } from './game.js'
import {
  assertPhpSchema,
  formatReport,
  importPhp,
  isMysqlUrl,
  openMysqlSource,
  openSqliteSource,
  type ImportReport,
  type PhpSource,
  type Progress,
} from './import.js'

const USAGE = `Usage: npm run import:php -- --from <sqlite file | mysql://user:pass@host:port/db> [--game <id>] [--dry-run]

Copies a horizOn Simple Server's users (with their ids, names and anonymous tokens), scores, cloud
saves, remote config, news, gift codes and redemptions, feedback, logs and crash data into a game of
the Outpost server configured in .env: the game --game names (it must exist: create it first with
POST /api/v1/admin/games), else \`default\`. Running it again copies nothing twice. --dry-run writes nothing.`

/** The import's arguments once parsed. */
export interface ImportArgs {
  from: string
  /** The game the data goes into. */
  game: string
  dryRun: boolean
}

/** The arguments or the message saying what is wrong with them, kept apart from main for tests. */
export function parseArgs(argv: string[]): ImportArgs | string {
  let from: string | undefined
  let game = DEFAULT_GAME
  let dryRun = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--dry-run') dryRun = true
    else if (arg === '--from') from = argv[++i]
    else if (arg.startsWith('--from=')) from = arg.slice('--from='.length)
    else if (arg === '--game') game = argv[++i] ?? ''
    else if (arg.startsWith('--game=')) game = arg.slice('--game='.length)
    else if (arg === '--help' || arg === '-h') return USAGE
    else return `Unknown argument "${arg}".\n\n${USAGE}`
  }
  if (!from) return `--from is required.\n\n${USAGE}`
  if (!new RegExp(GAME_ID_PATTERN).test(game)) {
    return `--game "${game}" is not a game id (lower-case letters, digits and dashes, at most 32).\n\n${USAGE}`
  }
  return { from, game, dryRun }
}

/** A bar on a terminal; nothing when the output is a file or a pipe (the counts at the end say it all). */
function terminalProgress(stream: Output['out']): Progress | undefined {
  if (!stream.isTTY) return undefined
  let table = ''
  let total = 0
  let last = 0
  const draw = (done: number) => {
    const width = 30
    const filled = total === 0 ? width : Math.round((done / total) * width)
    stream.write(`\r${table.padEnd(22)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`)
  }
  return {
    start(name, rows) {
      table = name
      total = rows
      last = 0
      draw(0)
    },
    tick(done) {
      const now = Date.now()
      if (done === total || now - last > 100) {
        last = now
        draw(done)
      }
    },
    end() {
      draw(total)
      stream.write('\n')
    },
  }
}

async function pendingMigrations(db: Kysely<any>): Promise<number> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => MIGRATIONS } })
  const all = await migrator.getMigrations()
  return all.filter((m) => m.executedAt === undefined).length
}

class DryRunRollback extends Error {}

/** Runs the import in a transaction that is always rolled back: the counts are exact, nothing stays. */
async function dryRun(db: Db, run: (db: Db) => Promise<ImportReport>): Promise<ImportReport> {
  let report: ImportReport | undefined
  try {
    await db.transaction().execute(async (trx) => {
      report = await run(trx)
      throw new DryRunRollback()
    })
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error
  }
  return report!
}

/**
 * The database to import into. A dry run never migrates the configured database: when it is not
 * migrated yet, a SQLite dry run works on a migrated temporary copy, and one on a database server
 * (MySQL, PostgreSQL) stops.
 */
async function target(config: Config, dry: boolean, game: string): Promise<Target> {
  const settings = { ...config, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS }
  if (game !== DEFAULT_GAME) return gameTarget(settings, dry, game)
  if (!dry) {
    const db = createDb(settings)
    await migrateToLatest(db, MIGRATIONS)
    return { db, cleanup: () => db.destroy() }
  }
  const server = isDatabaseServer(config)
  if (!server && !existsSync(config.DB_PATH)) return scratchCopy(settings, undefined)
  const db = createDb(settings)
  if ((await pendingMigrations(db)) === 0) return { db, cleanup: () => db.destroy() }
  if (server) {
    await db.destroy()
    throw new Error(
      'The Outpost database is not migrated yet and a dry run writes nothing: run `npm run migrate` first',
    )
  }
  await db.destroy()
  return scratchCopy(settings, config.DB_PATH)
}

async function scratchCopy(config: Config, from: string | undefined): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-dry-run-'))
  const path = join(dir, 'outpost.db')
  if (from) {
    const source = new SQLite(from, { fileMustExist: true })
    await source.backup(path)
    source.close()
  }
  const db = createDb({ ...config, DB_PATH: path })
  await migrateToLatest(db, MIGRATIONS)
  return {
    db,
    cleanup: async () => {
      await db.destroy()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Where the command writes: the process's streams, or a test's buffers. */
export interface Output {
  out: { write(text: string): unknown; isTTY?: boolean }
  err: { write(text: string): unknown }
}

/** The import command's entry point, taking argv and env so tests run it in process. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Output = { out: process.stdout, err: process.stderr },
  envFile = '.env',
): Promise<number> {
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    const help = args === USAGE
    ;(help ? io.out : io.err).write(`${args}\n`)
    return help ? 0 : 2
  }
  let config: Config
  try {
    config = loadConfig(env, { envFile })
  } catch (error) {
    io.err.write(`${describeConfigError(error as Error)}\n`)
    return 1
  }
  let source: PhpSource
  if (isMysqlUrl(args.from)) {
    source = await openMysqlSource(args.from)
  } else {
    if (!existsSync(args.from)) {
      io.err.write(`No such file: ${args.from} (give the PHP server's SQLite file or a mysql:// URL)\n`)
      return 2
    }
    if (!statSync(args.from).isFile()) {
      io.err.write(`${args.from} is not a file: give the PHP server's SQLite file (DB_PATH in its .env)\n`)
      return 2
    }
    // Read from a copy: the PHP server may be writing its file, and its WAL must not be half-read.
    const dir = mkdtempSync(join(tmpdir(), 'outpost-import-'))
    const copy = join(dir, 'source.db')
    try {
      const live = new SQLite(args.from, { fileMustExist: true })
      try {
        await live.backup(copy)
      } finally {
        live.close()
      }
    } catch (error) {
      // Whatever fails here (a file that is not SQLite, a lock), the temporary copy goes with it.
      rmSync(dir, { recursive: true, force: true })
      throw error
    }
    const opened = openSqliteSource(copy)
    source = {
      ...opened,
      description: `SQLite file ${args.from}`,
      close: async () => {
        await opened.close()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  let db: Db
  let cleanup: () => Promise<void> | void
  try {
    await assertPhpSchema(source)
    ;({ db, cleanup } = await target(config, args.dryRun, args.game))
  } catch (error) {
    await source.close()
    throw error
  }
  try {
    io.out.write(
      `${args.dryRun ? 'Dry run: reading' : 'Importing'} ${source.description} into the game ${args.game} ` +
        `of Outpost's ${config.DB_DRIVER} database\n`,
    )
    const settings = { boardKey: 'default', cloudSaveMaxBytes: config.CLOUD_SAVE_MAX_BYTES, now: Date.now() }
    const progress = terminalProgress(io.out)
    const run = (into: Db) => importPhp(source, into, settings, progress)
    const report = args.dryRun ? await dryRun(db, run) : await run(db)
    io.out.write(`${formatReport(report, args.dryRun)}\n`)
    return 0
  } finally {
    await source.close()
    await cleanup()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`Import failed: ${(error as Error).message}\n`)
      process.exit(1)
    },
  )
}
