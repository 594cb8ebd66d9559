import { closeSync, openSync } from 'node:fs'

/** A database and its copies hold password hashes, e-mail addresses and tokens: readable by their owner only. */
export const PRIVATE_MODE = 0o600

/**
 * Creates the SQLite file `path` empty and private (0600) when it does not exist yet, before SQLite
 * opens it: SQLite would create it 0644 under the usual umask, and it gives the `-wal` and `-shm`
 * files it makes beside a database the database file's own mode. A file that exists keeps the mode
 * its owner gave it. An empty file is a valid new database.
 */
export function createPrivateFile(path: string): void {
  if (path === '' || path === ':memory:') return
  try {
    closeSync(openSync(path, 'wx', PRIVATE_MODE))
  } catch (error) {
    // Another process (a second instance, the operator CLI) created it first: it is just as private.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}
