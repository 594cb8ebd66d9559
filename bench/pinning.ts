import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { availableParallelism } from 'node:os'

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

/**
 * Pins processes we did not start (the machine's mariadbd) to `core` for the run and gives each its
 * previous affinity back: when `restore` is called, and on exit, ^C or SIGTERM whatever happened.
 * Every thread gets the main thread's previous list (threads started meanwhile inherited `core`).
 */
export class BorrowedPins {
  private readonly previous = new Map<number, string>()

  constructor(private readonly log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {
    process.once('exit', () => this.restore())
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.prependOnceListener(signal, () => this.restore())
  }

  pin(pid: number, core: number) {
    if (!this.previous.has(pid)) this.previous.set(pid, affinityOf(pid))
    pinAll(pid, core)
  }

  /** Synchronous, so the exit handler can run it. */
  restore() {
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
  }

  /** What is pinned now, by pid, with the list it gets back. */
  held(): ReadonlyMap<number, string> {
    return this.previous
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
