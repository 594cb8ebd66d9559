import { parentPort, workerData } from 'node:worker_threads'
import SQLite from 'better-sqlite3'

/**
 * The thread of `checkpointer.ts`: its own connection to the database file, copying the WAL back
 * into the file every `intervalMs` (PASSIVE: it never waits for, nor holds up, a reader or writer).
 * A checkpoint that fails (the file busy, a disk error) is simply tried again on the next tick; the
 * server's own connection still checkpoints by itself if the log grows past its limit.
 */
const { path, intervalMs } = workerData as { path: string; intervalMs: number }
const db = new SQLite(path)
db.pragma('busy_timeout = 0')
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {
    // Tried again on the next tick.
  }
}, intervalMs)
parentPort!.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort!.close()
})
