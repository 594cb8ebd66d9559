import { parentPort, workerData } from 'node:worker_threads'
import SQLite from 'better-sqlite3'

/**
 * The thread of `checkpointer.ts`: its own connection to the database file, copying the WAL back
 * into the file every `intervalMs` (PASSIVE: it never waits for, nor holds up, a reader or writer).
 * A checkpoint that fails (a disk error, the file gone) is tried again on the next tick, and told to
 * the server at most once per `reportEveryMs` (every 200 ms would flood its log); the server's own
 * connection still checkpoints by itself if the log grows past its limit. A checkpoint that could
 * not copy everything because a reader still needs old pages is not a failure: PASSIVE does that.
 */
const { path, intervalMs, reportEveryMs } = workerData as { path: string; intervalMs: number; reportEveryMs: number }
const db = new SQLite(path)
db.pragma('busy_timeout = 0')
let reportedAt = -Infinity
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch (error) {
    if (performance.now() - reportedAt < reportEveryMs) return
    reportedAt = performance.now()
    parentPort!.postMessage({ failed: error instanceof Error ? error.message : String(error) })
  }
}, intervalMs)
parentPort!.once('message', () => {
  clearInterval(timer)
  db.close()
  parentPort!.close()
})
