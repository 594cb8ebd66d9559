import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Per-core measurement: each server under test and everything it runs (Outpost and its threads and
 * workers; nginx and php-fpm with theirs; for MySQL runs the machine's mariadbd) on one core, the
 * load generator (this process, autocannon runs in it) on the other. On a 2-core machine a load
 * generator sharing the server's cores measures itself as much as the server; pinned, the server's
 * CPU per request and its rps on one core are what the numbers say.
 */

export interface Pinning {
  /** The core the servers run on, or null when pinning is off. */
  serverCore: number | null
  /** The core this process (the load generator) runs on, or null. */
  benchCore: number | null
  /** Why pinning is off, or how it is set: printed with every table and written in the JSON. */
  note: string
}

const TASKSET_PATHS = ['/usr/bin/taskset', '/bin/taskset', '/usr/local/bin/taskset']

export function tasksetPath(): string | null {
  return TASKSET_PATHS.find((path) => existsSync(path)) ?? null
}

/**
 * What `--per-core` / `--no-pin` and the machine allow. `cores`: the cores this process may use
 * (its affinity, `usableCores`); the first is the servers', the second the load generator's (0 and 1
 * on an unrestricted machine). `mode`: 'auto' pins when it can, 'on' fails when it cannot, 'off'
 * never pins.
 */
export function decidePinning(mode: 'auto' | 'on' | 'off', cores: number[], taskset: string | null): Pinning {
  const off = (why: string): Pinning => ({ serverCore: null, benchCore: null, note: `pinning off: ${why}` })
  if (mode === 'off') return off('--no-pin')
  const missing = !taskset
    ? 'taskset is not installed (util-linux)'
    : cores.length < 2
      ? `this process may use ${cores.length} core, pinning needs 2 (one for the server, one for the load)`
      : null
  if (missing) {
    if (mode === 'on') throw new Error(`--per-core: ${missing}; run without it, or with --no-pin`)
    return off(missing)
  }
  const [serverCore, benchCore] = cores as [number, number]
  return {
    serverCore,
    benchCore,
    note: `per core: server (all its processes and threads) on core ${serverCore}, load generator on core ${benchCore}`,
  }
}

/** The CPU list `taskset -c -p PID` prints ("pid 12's current affinity list: 0,1" → "0,1"). */
export function parseAffinity(output: string): string {
  const match = /current affinity list:\s*([0-9,-]+)\s*$/m.exec(output)
  if (!match) throw new Error(`unexpected taskset output: ${output.trim()}`)
  return match[1]!
}

function taskset(args: string[]): string {
  const path = tasksetPath()
  if (!path) throw new Error('taskset is not installed')
  const run = spawnSync(path, args, { encoding: 'utf8', timeout: 10_000 })
  if (run.status !== 0) throw new Error(`taskset ${args.join(' ')} failed: ${(run.stderr || run.stdout).trim()}`)
  return run.stdout
}

export const affinityOf = (pid: number) => parseAffinity(taskset(['-c', '-p', String(pid)]))

/** Every thread of `pid` (-a) on `cpus` ("0", "0,1"). */
export function pinAll(pid: number, cpus: string | number) {
  taskset(['-a', '-c', '-p', String(cpus), String(pid)])
}

/** The command that starts `file args…` on `core`: taskset execs it, so the pid is the program's. */
export function pinnedCommand(core: number | null, file: string, args: string[]): [string, string[]] {
  const path = tasksetPath()
  return core === null || !path ? [file, args] : [path, ['-c', String(core), file, ...args]]
}

/** The cores each thread of `pids` may run on, for the check after a server started: "0" for all of them. */
export function treeAffinity(pids: number[]): Set<string> {
  const lists = new Set<string>()
  for (const pid of pids) {
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${pid}/task`)
    } catch {
      continue // gone
    }
    for (const tid of tasks) {
      try {
        const status = readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8')
        const list = /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1]
        if (list) lists.add(list)
      } catch {
        // the thread is gone
      }
    }
  }
  return lists
}

/**
 * Throws when a process or thread of a server is not on `core` alone (a server that reset its own
 * affinity, or a process started outside the tree we pinned): its numbers would not be per core.
 */
export function assertPinned(what: string, pids: number[], core: number | null) {
  if (core === null) return
  const lists = treeAffinity(pids)
  const stray = [...lists].filter((list) => list !== String(core))
  if (stray.length) throw new Error(`${what} runs on cores ${stray.join(' / ')}, not on core ${core} alone`)
}

/** Where a bench that pinned a process it did not start records what to give back (see `BorrowedPins`). */
export const PIN_RECORD_PATH = join(tmpdir(), 'outpost-bench-pins.json')

interface PinRecord {
  /** The bench that holds the pins. */
  holder: number
  /** Pinned pid → the affinity it had before any bench pinned it. */
  previous: Record<string, string>
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Pins processes we did not start (the machine's mariadbd) to `core` for the run and gives each its
 * previous affinity back: when `restore` is called, and on exit, ^C or SIGTERM whatever happened.
 * Every thread gets the main thread's previous list (threads started meanwhile inherited `core`).
 *
 * What is pinned is recorded in a file (`recordPath`) until it is given back. A second bench that
 * finds the record of a live bench refuses to pin (it would take the first one's pin for the
 * original affinity, and give back the wrong one). A record whose bench is gone (killed with
 * SIGKILL, so nothing gave the affinity back) holds the true previous affinity: the next bench
 * takes it over and gives that back, and says so.
 */
export class BorrowedPins {
  private readonly previous = new Map<number, string>()

  constructor(
    private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
    readonly recordPath = PIN_RECORD_PATH,
  ) {
    process.once('exit', () => this.restore())
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.prependOnceListener(signal, () => this.restore())
  }

  pin(pid: number, core: number) {
    if (!this.previous.has(pid)) {
      if (this.previous.size === 0) this.claimRecord()
      if (!this.previous.has(pid)) this.previous.set(pid, affinityOf(pid))
      this.writeRecord()
    }
    pinAll(pid, core)
  }

  /** Synchronous, so the exit handler can run it. */
  restore() {
    if (this.previous.size === 0) return
    for (const [pid, cpus] of this.previous) {
      try {
        pinAll(pid, cpus)
      } catch (error) {
        // Gone (restarted) is fine: a new process starts with the default affinity.
        if (existsSync(`/proc/${pid}`))
          this.log(`!!! could not give pid ${pid} its affinity ${cpus} back: ${(error as Error).message}`)
      }
    }
    this.previous.clear()
    rmSync(this.recordPath, { force: true })
  }

  /** What is pinned now, by pid, with the list it gets back. */
  held(): ReadonlyMap<number, string> {
    return this.previous
  }

  /** Creates the record, or takes over one whose bench is gone; fails while another bench holds it. */
  private claimRecord() {
    try {
      writeFileSync(this.recordPath, JSON.stringify({ holder: process.pid, previous: {} }), { flag: 'wx' })
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let record: PinRecord
    try {
      record = JSON.parse(readFileSync(this.recordPath, 'utf8')) as PinRecord
    } catch {
      return // unreadable: there is nothing in it to take over, and it is written anew
    }
    if (record.holder !== process.pid && alive(record.holder)) {
      throw new Error(
        `another bench (pid ${record.holder}) has pinned pid ${Object.keys(record.previous).join(', ')} and gives ` +
          `it back when it ends: wait for it, or run this one with --no-pin (record: ${this.recordPath})`,
      )
    }
    for (const [pid, cpus] of Object.entries(record.previous)) {
      if (!existsSync(`/proc/${pid}`)) continue
      this.previous.set(Number(pid), cpus)
      this.log(
        `a bench that ended without giving it back left pid ${pid} pinned: its affinity ${cpus} is given back at the end`,
      )
    }
  }

  private writeRecord() {
    const record: PinRecord = { holder: process.pid, previous: Object.fromEntries(this.previous) }
    writeFileSync(this.recordPath, JSON.stringify(record))
  }
}

/** "0-3,8" (a kernel CPU list) → [0, 1, 2, 3, 8]. */
export function parseCpuList(list: string): number[] {
  const cores: number[] = []
  for (const part of list.trim().split(',')) {
    const [from, to = from] = part.split('-').map(Number) as [number, number?]
    if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) throw new Error(`not a CPU list: ${list}`)
    for (let core = from; core <= to && cores.length < 4096; core++) cores.push(core)
  }
  return cores
}

/** The cores this process may use (its affinity, which a `taskset` around the bench narrows). */
export function usableCores(): number[] {
  const list = /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
  return list ? parseCpuList(list) : Array.from({ length: availableParallelism() }, (_, i) => i)
}
