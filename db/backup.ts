import { existsSync, statSync } from 'node:fs'
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import SQLite from 'better-sqlite3'
import { describeConfigError, loadConfig } from '../config.js'

/** Pages per backup step: all of them, so the copy is read in one transaction (one consistent snapshot). */
const ALL_PAGES = 0x7fffffff

export interface BackupResult {
  path: string
  bytes: number
  pages: number
  integrity: string
}

/**
 * A consistent copy of a SQLite database that may be in use: SQLite's online backup, reading every page
 * in one step, under one read transaction. In WAL mode readers never block writers, so a running server
 * keeps writing meanwhile, and the copy is the database as it stood at one instant. The copy is then
 * opened and checked (`PRAGMA integrity_check`).
 */
export async function backupSqlite(sourcePath: string, destination: string): Promise<BackupResult> {
  if (!existsSync(sourcePath)) throw new Error(`No SQLite database at ${sourcePath} (DB_PATH)`)
  if (resolve(sourcePath) === resolve(destination)) throw new Error('The backup file must not be the database itself')
  if (existsSync(destination)) throw new Error(`${destination} exists: name a new file (a backup never overwrites one)`)
  const source = new SQLite(sourcePath, { fileMustExist: true })
  // A writer holding the lock for a moment (a checkpoint) is waited for, not failed on.
  source.pragma('busy_timeout = 10000')
  let pages: number
  try {
    const result = await source.backup(destination, { progress: () => ALL_PAGES })
    pages = result.totalPages
  } finally {
    source.close()
  }
  const copy = new SQLite(destination, { fileMustExist: true })
  try {
    // The copy stands alone: one file, no WAL beside it.
    copy.pragma('journal_mode = DELETE')
    const integrity = copy.pragma('integrity_check', { simple: true }) as string
    return { path: destination, bytes: statSync(destination).size, pages, integrity }
  } finally {
    copy.close()
  }
}

const MYSQL_ADVICE =
  'npm run backup copies a SQLite database; this configuration uses MySQL (DB_DRIVER=mysql). Back it up with\n' +
  '  mysqldump --single-transaction --routines --triggers -h HOST -P PORT -u USER -p DB_NAME > FILE.sql\n' +
  '(--single-transaction takes a consistent snapshot without locking the running server).'

const USAGE = 'Usage: npm run backup -- FILE   (a new file; the SQLite database of .env is copied there)\n'

/** Where the command writes: the process's streams, or a test's buffers. */
export interface Output {
  out: { write(text: string): unknown }
  err: { write(text: string): unknown }
}

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
  if (config.DB_DRIVER === 'mysql') {
    io.err.write(`${MYSQL_ADVICE}\n`)
    return 2
  }
  const result = await backupSqlite(config.DB_PATH, file)
  if (result.integrity !== 'ok') {
    io.err.write(`The copy at ${file} failed its integrity check: ${result.integrity}\n`)
    return 1
  }
  io.out.write(
    `Backed up ${config.DB_PATH} to ${result.path}: ${result.pages} pages, ${result.bytes} bytes, integrity ok\n`,
  )
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
