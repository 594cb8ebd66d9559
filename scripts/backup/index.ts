// `npm run backup FILE`: a consistent copy of the server's SQLite databases, every game's, checked; for
// a database server, the command of its own tool to run instead (the engine's backup advice).
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { pathToFileURL } from 'node:url'
import SQLite from 'better-sqlite3'
import { describeConfigError, loadConfig } from '../../config.js'
import { backupSqlite, type BackupResult } from '../../db/backup.js'
import { atHost, dbHosts } from '../../db/hosts.js'
import { engineNamed } from '../../db/engines/index.js'
import { DEFAULT_GAME, gameFile } from '../../db/games.js'

const USAGE =
  'Usage: npm run backup -- FILE   (a new file; the SQLite database of .env is copied there, and each other\n' +
  "game's database into the folder beside it that the server's own layout names: FILE outpost.db, game g\n" +
  'in outpost.games/g.db)\n'

/**
 * The games a backup of the default game's database lists (read from the copy, so the games backed up
 * are those of that instant), `default` left out: each has a database file of its own.
 */
export function gamesIn(copy: string): string[] {
  const db = new SQLite(copy, { readonly: true, fileMustExist: true })
  try {
    const table = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'games'").get()
    if (!table) return []
    const rows = db.prepare('select id from games where deleted_at is null order by id').all() as Array<{ id: string }>
    return rows.map((r) => r.id).filter((id) => id !== DEFAULT_GAME)
  } finally {
    db.close()
  }
}

/** Where the command writes: the process's streams, or a test's buffers. */
export interface Output {
  out: { write(text: string): unknown }
  err: { write(text: string): unknown }
}

/** The backup command's entry point, taking argv and env so tests run it in process. */
export async function main(
  argv: string[],
  env: Record<string, string | undefined>,
  io: Output = { out: process.stdout, err: process.stderr },
  envFile = '.env',
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out.write(USAGE)
    return 0
  }
  const file = argv.find((arg) => !arg.startsWith('-'))
  if (!file) {
    io.err.write(USAGE)
    return 2
  }
  let config
  try {
    config = loadConfig(env, { envFile })
  } catch (error) {
    io.err.write(`${describeConfigError(error as Error)}\n`)
    return 1
  }
  // A database server is backed up with its own tool: the command to run is printed instead. With a
  // list of hosts (DB_HOST), against the first: every node of the cluster holds the data.
  const engine = engineNamed(config.DB_DRIVER)
  const advice = engine.backupAdvice(engine.defaultPort === null ? config : atHost(config, dbHosts(config)[0]!), file)
  if (advice !== null) {
    io.err.write(`${advice}\n`)
    return 2
  }
  let result: BackupResult
  try {
    result = await backupSqlite(config.DB_PATH, file)
  } catch (error) {
    io.err.write(`Backup failed: ${(error as Error).message}\n`)
    return 1
  }
  io.out.write(
    `Backed up ${config.DB_PATH} to ${result.path}: ${result.pages} pages, ${result.bytes} bytes, integrity ok\n`,
  )
  // Every other game's file, copied where the server looks for it beside a DB_PATH named FILE, so that
  // restoring is putting FILE and its folder of games in place together.
  const games = gamesIn(result.path)
  for (const id of games) {
    const from = gameFile(config.DB_PATH, id)
    const to = gameFile(file, id)
    try {
      mkdirSync(dirname(to), { recursive: true, mode: 0o700 })
      const copy = await backupSqlite(from, to)
      io.out.write(
        `Backed up game ${id}, ${from}, to ${copy.path}: ${copy.pages} pages, ${copy.bytes} bytes, integrity ok\n`,
      )
    } catch (error) {
      io.err.write(
        `Backup of game ${id} failed: ${(error as Error).message}. The copies made so far are whole; ` +
          'run the backup again into a new FILE\n',
      )
      return 1
    }
  }
  if (games.length > 0) {
    io.out.write(
      `${games.length + 1} games backed up: restore ${file} as DB_PATH and ${dirname(gameFile(file, DEFAULT_GAME))} ` +
        `as the folder beside it (${dirname(gameFile(config.DB_PATH, DEFAULT_GAME))})\n`,
    )
  }
  return 0
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`Backup failed: ${(error as Error).message}\n`)
      process.exit(1)
    },
  )
}
