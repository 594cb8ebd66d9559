import { readdirSync, readFileSync } from 'node:fs'
import { affinityOf, BorrowedPins, pinAll, treeAffinity } from './pinning.js'
import { leftByGoneBench, processTree } from './processes.js'
import { createPostgresDatabase, dropPostgresDatabase, onPostgresServer, postgresSettings } from './postgres.js'

/**
 * The PostgreSQL side of a bench run: a database of its own on the server, and the server's processes
 * whose CPU counts with Outpost's and which run on the server core.
 *
 * PostgreSQL forks a backend per connection, so there is no fixed pid list as with mariadbd: the
 * postmaster's tree is sampled while the run lasts. Of that tree the stack is the postmaster, its
 * auxiliary processes (checkpointer, background writer, WAL writer, autovacuum) and the backends
 * connected to the run's database; backends of other databases (other clients of a shared server) are
 * left out, which the process title (`postgres: USER DB HOST(PORT) STATE`) allows.
 */

/** A fresh database `name` (benchDatabaseName()), after dropping those of benches that were killed. */
export async function freshPostgresDatabase(url: string, pool: number, name: string): Promise<Record<string, string>> {
  const rows = (await onPostgresServer(
    url,
    "SELECT datname FROM pg_database WHERE datname LIKE 'outpost\\_bench\\_%'",
  )) as Array<{ datname: string }>
  for (const { datname } of rows) if (leftByGoneBench(datname)) await dropPostgresDatabase(url, datname)
  await dropPostgresDatabase(url, name)
  await createPostgresDatabase(url, name)
  return postgresSettings(url, name, pool)
}

const comm = (pid: number | string) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim()
  } catch {
    return ''
  }
}

/** The process title PostgreSQL writes over its argv. */
const title = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim()
  } catch {
    return ''
  }
}

/** The postmaster: the `postgres` process whose parent is not a `postgres` process. */
export function postmasterPid(): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || comm(name) !== 'postgres') continue
    try {
      const ppid = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]!
      if (comm(ppid) !== 'postgres') return Number(name)
    } catch {
      // gone
    }
  }
  return null
}

/** A backend's title names its client's address, `HOST(PORT)` or `[local]`; auxiliary processes' do not. */
export function isOtherBackend(processTitle: string, database: string): boolean {
  const backend = /\s\S+\(\d+\)(\s|$)|\s\[local\](\s|$)/.test(processTitle)
  return backend && !processTitle.split(/\s+/).includes(database)
}

/** The postmaster and those of its children that serve `database` or the whole server. */
export function postgresStackPids(postmaster: number, database: string): number[] {
  return processTree(postmaster).filter((pid) => pid === postmaster || !isOtherBackend(title(pid), database))
}

/**
 * The process's own CPU in ms, without its reaped children's: the postmaster's cutime grows with every
 * backend that exits, other clients' included.
 */
function ownCpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10 // USER_HZ is 100 on Linux
  } catch {
    return null
  }
}

/**
 * CPU of a process set that changes while it is measured, sampled every 100 ms: each pid's last
 * reading stays counted after it exits, so a backend that ends mid-run keeps what it used up to the
 * last sample. A pid present at the first sample counts from its reading then; one that appears later
 * was forked meanwhile and counts from zero. A process born and gone between two samples is missed.
 */
export function sampledCpu(pids: () => number[]) {
  const seen = new Map<number, { base: number; last: number }>()
  let first = true
  const sample = () => {
    for (const pid of pids()) {
      const cpu = ownCpuMs(pid)
      if (cpu === null) continue
      const known = seen.get(pid)
      if (known) known.last = cpu
      else seen.set(pid, { base: first ? cpu : 0, last: cpu })
    }
    first = false
  }
  sample()
  const timer = setInterval(sample, 100)
  timer.unref()
  return {
    cpuMs: () => {
      sample()
      let sum = 0
      for (const { base, last } of seen.values()) sum += last - base
      return sum
    },
    stop: () => clearInterval(timer),
  }
}

/**
 * Pins the postmaster and the run's part of its tree to `core`, so the backends it forks for Outpost's
 * connections start there. Backends forked meanwhile for other clients inherit the core too: `release`
 * gives every process of the tree still on `core` alone the postmaster's previous affinity back, after
 * `borrowed` has restored those it pinned itself.
 */
export function pinPostgres(borrowed: BorrowedPins, postmaster: number, database: string, core: number) {
  const previous = affinityOf(postmaster)
  for (const pid of postgresStackPids(postmaster, database)) borrowed.pin(pid, core)
  const release = () => {
    borrowed.restore()
    if (previous === String(core)) return
    for (const pid of processTree(postmaster)) {
      const lists = treeAffinity([pid])
      if (lists.size === 1 && lists.has(String(core)))
        try {
          pinAll(pid, previous)
        } catch {
          // gone
        }
    }
  }
  process.once('exit', release)
  return () => {
    process.off('exit', release)
    release()
  }
}
