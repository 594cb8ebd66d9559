import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, linkSync, lstatSync, openSync, renameSync, rmSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import SQLite from 'better-sqlite3'
import { PRIVATE_MODE } from './private-file.js'

/** Pages per backup step: all of them, so the copy is read in one transaction (one consistent snapshot). */
const ALL_PAGES = 0x7fffffff

/** What the backup command reports: where the copy went and how large it is. */
export interface BackupResult {
  path: string
  bytes: number
  pages: number
  integrity: string
}

/** The source, or a clear error: a missing or empty file would "back up" nothing and say it worked. */
function assertSource(sourcePath: string): void {
  if (sourcePath.trim() === '') throw new Error("DB_PATH is empty: set it in .env to the server's database file")
  const stat = statSync(sourcePath, { throwIfNoEntry: false })
  if (!stat) throw new Error(`No SQLite database at ${sourcePath}: set DB_PATH in .env to the server's database file`)
  if (!stat.isFile()) throw new Error(`${sourcePath} is not a file: set DB_PATH in .env to the server's database file`)
  if (stat.size === 0) {
    throw new Error(
      `${sourcePath} is empty (0 bytes), so there is nothing to back up: check that DB_PATH in .env names ` +
        "the server's database file (the one the running server writes)",
    )
  }
}

/**
 * The target, which must not exist in any form. lstat, not exists: a dangling link answers "absent"
 * to existsSync and SQLite would then write the copy wherever the link points.
 */
function assertTarget(destination: string): void {
  const stat = lstatSync(destination, { throwIfNoEntry: false })
  if (stat?.isSymbolicLink()) {
    throw new Error(`${destination} is a symbolic link: name a new file (a backup never writes through a link)`)
  }
  if (stat) throw new Error(`${destination} exists: name a new file (a backup never overwrites one)`)
}

/** The copy and what SQLite may have put beside it while it was open. */
function removeCopy(path: string): void {
  for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
}

/** Errors of a file system without hard links, where the copy is renamed into place instead. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS'])

/**
 * Gives the finished copy the target's name without ever replacing a file: a hard link fails when the
 * name was taken since the check above (the temporary name is removed by the caller).
 */
function moveIntoPlace(temp: string, destination: string): void {
  try {
    linkSync(temp, destination)
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code)
    if (code === 'EEXIST') assertTarget(destination)
    if (!NO_HARD_LINKS.has(code)) throw error
    assertTarget(destination)
    renameSync(temp, destination)
  }
}

/**
 * A consistent copy of a SQLite database that may be in use: SQLite's online backup, reading every page
 * in one step, under one read transaction. In WAL mode readers never block writers, so a running server
 * keeps writing meanwhile, and the copy is the database as it stood at one instant. The copy is written
 * to a private (0600) temporary file beside the target, checked (`PRAGMA integrity_check`), and only
 * then given the target's name; on any failure the temporary file is removed and the target never appears.
 */
export async function backupSqlite(sourcePath: string, destination: string): Promise<BackupResult> {
  assertSource(sourcePath)
  if (resolve(sourcePath) === resolve(destination)) throw new Error('The backup file must not be the database itself')
  assertTarget(destination)
  const temp = join(dirname(destination), `.${basename(destination)}.${randomBytes(6).toString('hex')}.tmp`)
  // Created here, exclusively and private, so SQLite writes into a file no other user can read.
  closeSync(openSync(temp, 'wx', PRIVATE_MODE))
  try {
    chmodSync(temp, PRIVATE_MODE)
    const source = new SQLite(sourcePath, { fileMustExist: true })
    let pages: number
    try {
      // A writer holding the lock for a moment (a checkpoint) is waited for, not failed on.
      source.pragma('busy_timeout = 10000')
      pages = (await source.backup(temp, { progress: () => ALL_PAGES })).totalPages
    } finally {
      source.close()
    }
    if (pages === 0)
      throw new Error(`${sourcePath} holds no data (0 pages): check that DB_PATH names the server's database`)
    const copy = new SQLite(temp, { fileMustExist: true })
    let integrity: string
    try {
      // The copy stands alone: one file, no WAL beside it.
      copy.pragma('journal_mode = DELETE')
      integrity = copy.pragma('integrity_check', { simple: true }) as string
    } finally {
      copy.close()
    }
    if (integrity !== 'ok') throw new Error(`the copy failed its integrity check (${integrity}); nothing was kept`)
    const bytes = statSync(temp).size
    moveIntoPlace(temp, destination)
    return { path: destination, bytes, pages, integrity }
  } finally {
    removeCopy(temp)
  }
}
