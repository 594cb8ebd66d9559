import { statSync } from 'node:fs'
import { Worker } from 'node:worker_threads'

/** WAL size past which the checkpoint thread starts: SQLite's own default checkpoint point (1000 pages). */
const START_AT_BYTES = 4 * 1024 * 1024
/** How often the thread checkpoints once started, and how often the WAL size is looked at before. */
const CHECKPOINT_EVERY_MS = 200
const WATCH_EVERY_MS = 1000
/** A failing checkpoint is told at most this often. */
const REPORT_EVERY_MS = 60_000

/**
 * Moves WAL checkpoints off the request thread. better-sqlite3 is synchronous: a checkpoint that a
 * commit runs (SQLite's `wal_autocheckpoint`) copies the log into the database file and fsyncs it
 * while every request waits, which showed as the p99 of writes. A worker thread with its own
 * connection checkpoints instead (WAL allows that beside the server's connection, also from other
 * processes). It starts only once the log has grown past 4 MB, so the many short-lived databases of
 * tests and CLI runs never start a thread. A checkpoint that fails (at most once a minute) and a thread
 * that dies are told to `onProblem` (the server logs them). Returns the function that stops it (the
 * database closes).
 */
export function startCheckpointer(path: string, onProblem: (problem: Error) => void = () => {}): () => void {
  let worker: Worker | undefined
  const watch = setInterval(() => {
    let size = 0
    try {
      size = statSync(`${path}-wal`).size
    } catch {
      return
    }
    if (size < START_AT_BYTES) return
    clearInterval(watch)
    worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { path, intervalMs: CHECKPOINT_EVERY_MS, reportEveryMs: REPORT_EVERY_MS },
    })
    worker.on('message', (message: { failed?: string }) => {
      if (message.failed !== undefined) onProblem(new Error(`WAL checkpoint failed: ${message.failed}`))
    })
    // A thread that fails leaves checkpoints to the server's connection, as before it started.
    worker.on('error', (error) =>
      onProblem(
        new Error(`The WAL checkpoint thread stopped (${error.message}); commits checkpoint the WAL themselves now`),
      ),
    )
    worker.unref()
  }, WATCH_EVERY_MS)
  watch.unref()
  return () => {
    clearInterval(watch)
    worker?.postMessage('stop')
  }
}
