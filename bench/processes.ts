import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, openSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { pinnedCommand } from './pinning.js'

/**
 * Servers under test as child processes, with their CPU and memory read from /proc. A server may
 * fork (Outpost's workers, php-fpm's pool, nginx's workers): every figure is taken over the whole
 * process tree under the one we started.
 */

export interface Server {
  /** The processes we started; the first one is the one the server's figures start from. */
  children: ChildProcess[]
  url: string
  /** CPU time the whole tree has used so far, in milliseconds (user + system). */
  cpuMs: () => number
  /** The largest resident set of any one process of the tree since the last reset, in bytes. */
  peakRss: () => number
  /** The most processes seen in the tree at once since the last reset. */
  peakProcesses: () => number
  resetPeak: () => void
  stop: () => Promise<void>
  /** The part of `cpuMs` that is the database server's processes' (MariaDB, PostgreSQL), when counted. */
  databaseCpuMs?: () => number
  /** Database statements the server has sent so far (its /metrics), when it counts them. */
  statements?: () => Promise<number | null>
}

/**
 * The Node flags `npm start` runs the server with (package.json's start script, which the Dockerfile's
 * CMD repeats), so the bench measures the server as it runs in production.
 */
export function serverNodeFlags(serverDir: string): string[] {
  const start = String(JSON.parse(readFileSync(join(serverDir, 'package.json'), 'utf8')).scripts?.start ?? '')
  const match = /^node((?:\s+--\S+)*)\s+dist\/server\.js$/.exec(start.trim())
  if (!match) throw new Error(`package.json's start script is not "node [--flags] dist/server.js": ${start}`)
  return match[1]!.trim().split(/\s+/).filter(Boolean)
}

const TICKS_PER_MS = 100 / 1000 // USER_HZ is 100 on Linux

/** The pid and all its descendants. `children` files exist on every kernel since 4.2 (CONFIG_PROC_CHILDREN). */
export function processTree(pid: number): number[] {
  const all = [pid]
  for (let i = 0; i < all.length && all.length < 1000; i++) {
    let tasks: string[]
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`)
    } catch {
      continue // the process is gone
    }
    for (const tid of tasks) {
      const file = `/proc/${all[i]}/task/${tid}/children`
      if (!existsSync(file)) continue
      try {
        for (const child of readFileSync(file, 'utf8').split(' ')) if (child.trim()) all.push(Number(child))
      } catch {
        // the thread is gone
      }
    }
  }
  return all
}

/**
 * The largest resident set the process reached: VmHWM, the kernel's own peak, which a 100 ms sample
 * of VmRSS would miss between samples; VmRSS where the kernel keeps no peak.
 */
export function peakRssBytes(status: string): number {
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return Math.max(kb('VmHWM'), kb('VmRSS')) * 1024
}

function rssBytes(pid: number): number {
  try {
    return peakRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return 0
  }
}

/**
 * Sets the kernel's peak (VmHWM) back to the current resident set, so the next peak is the
 * scenario's and not the seeding's. Needs to own the process or be root; where refused, the peak
 * since the process started stands (an overestimate, never an underestimate).
 */
function resetKernelPeak(pid: number) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5')
  } catch {
    // not ours to reset, or gone
  }
}

/**
 * CPU time of the process in ms: /proc/PID/stat's utime + stime are the whole process's, every
 * thread included (those that ended too); cutime + cstime add the children it has waited for.
 */
export function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    // utime + stime of the process, plus cutime + cstime: the CPU of children it has waited for,
    // so a worker that exits mid-run still counts.
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_MS
  } catch {
    return 0
  }
}

/**
 * The local MySQL/MariaDB server's processes: a request's cost on MySQL is Outpost's CPU and the
 * database server's. With `port`, only the server listening on it (a server of the bench's own, while
 * the machine's serves other work); without, or when no local process listens there, every mariadbd.
 * Other clients of the server counted still count: a measurement, not a bound.
 */
export function databaseServerPids(port?: number): number[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return ['mariadbd', 'mysqld'].includes(readFileSync(`/proc/${pid}/comm`, 'utf8').trim())
      } catch {
        return false
      }
    })
    .map(Number)
  if (port === undefined) return all
  const listening = listeningSockets(port)
  const owner = all.filter((pid) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return listening.has(readlinkSync(`/proc/${pid}/fd/${fd}`))
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  })
  return owner.length ? owner : all
}

/** The `socket:[inode]` links of the TCP sockets listening on `port` (IPv4 and IPv6). */
function listeningSockets(port: number): Set<string> {
  const found = new Set<string>()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/)
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the tenth field.
      if (f.length > 9 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) found.add(`socket:[${f[9]}]`)
    }
  }
  return found
}

/**
 * Watches the tree under `roots`: peak RSS of any one process and the number of processes every
 * 100 ms. CPU is summed over the live tree when asked.
 */
export function watchTree(roots: () => number[]) {
  let peak = 0
  let peakCount = 0
  const sample = () => {
    const pids = roots().flatMap(processTree)
    peakCount = Math.max(peakCount, pids.length)
    for (const pid of pids) peak = Math.max(peak, rssBytes(pid))
  }
  const timer = setInterval(sample, 100)
  return {
    cpuMs: () => {
      // A child's own time and its parent's cutime never both count: cutime only grows once the
      // child has exited, and then it is no longer in the tree.
      return roots()
        .flatMap(processTree)
        .reduce((sum, pid) => sum + cpuOf(pid), 0)
    },
    peakRss: () => (sample(), peak),
    peakProcesses: () => (sample(), peakCount),
    resetPeak: () => {
      for (const pid of roots().flatMap(processTree)) resetKernelPeak(pid)
      peak = 0
      peakCount = 0
    },
    stop: () => clearInterval(timer),
  }
}

let databases = 0
/**
 * The name of a database of the bench's own on MariaDB or PostgreSQL: this process's pid, so that a
 * killed bench's databases can be found and dropped, and a count, since an A/B in rounds keeps two
 * servers (each on its own database) up at once.
 */
export const benchDatabaseName = () => `outpost_bench_${process.pid}_${++databases}`

/** A bench database (or one of its games' MariaDB databases) whose bench process is gone. */
export function leftByGoneBench(name: string): boolean {
  const pid = Number(/^outpost_bench_(\d+)(?:_\d+)?(?:__.*)?$/.exec(name)?.[1])
  return pid > 0 && !existsSync(`/proc/${pid}`)
}

/**
 * A port nobody listens on now, from the kernel. A guessed one could be taken by another server on
 * this shared machine, and the bench would then measure that server.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}

/**
 * Polls `url` until it answers (any status, or a 2xx with `ok`), or throws when `alive` says the
 * process died or `timeoutMs` (default 30 s) has passed. A proxy answers 502 before its backend is
 * up, hence `ok`.
 */
export async function waitForHttp(
  url: string,
  alive: () => boolean,
  what: string,
  options: { ok?: boolean; timeoutMs?: number } = {},
) {
  const timeoutMs = options.timeoutMs ?? 30_000
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    if (!alive()) throw new Error(`${what} exited before it listened`)
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.ok || !options.ok) return
      await new Promise((resolve) => setTimeout(resolve, 100))
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
  throw new Error(`${what} did not answer at ${url} within ${timeoutMs / 1000} s`)
}

export function waitForExit(child: ChildProcess, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    const force = setTimeout(() => killTree(child.pid!), graceMs)
    child.once('exit', () => {
      clearTimeout(force)
      resolve()
    })
    child.kill(signal)
  })
}

/** Every process the bench started, killed when the bench itself exits, even on an error or ^C. */
const started = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of started) if (child.exitCode === null) killTree(child.pid!)
})

/**
 * SIGKILL to a process and all its descendants, listed first and killed master first: php-fpm's and
 * nginx's workers would outlive a killed master, and a master that sees a worker die starts another.
 */
function killTree(pid: number) {
  for (const each of processTree(pid))
    try {
      process.kill(each, 'SIGKILL')
    } catch {
      // already gone
    }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    process.stderr.write(`\n${signal}: stopping the servers\n`)
    process.exit(130)
  })

export function track(child: ChildProcess) {
  started.add(child)
  child.once('exit', () => started.delete(child))
  return child
}

/**
 * Starts a node script and resolves once `healthPath` answers, within `startTimeoutMs` (default 30 s;
 * past it the process is killed and the start fails).
 */
export async function startNode(
  script: string,
  scriptArgs: string[],
  options: {
    cwd: string
    env: Record<string, string>
    port: number
    logFile: string
    nodeArgs?: string[]
    startTimeoutMs?: number
    /** CPU in ms that counts with the server's (its database server's processes), not its RSS. */
    alsoCpu?: () => number
    /** The core the server and everything it starts run on (bench/pinning.ts), or null for any. */
    core?: number | null
  },
  healthPath = '/health',
): Promise<Server> {
  // The server's log goes to a file: an unread pipe would fill up and stall the server mid-run.
  const log = openSync(options.logFile, 'a')
  const [file, args] = pinnedCommand(options.core ?? null, process.execPath, [
    ...(options.nodeArgs ?? []),
    script,
    ...scriptArgs,
  ])
  const child = track(
    spawn(file, args, {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['ignore', log, log],
    }),
  )
  const url = `http://127.0.0.1:${options.port}`
  try {
    await waitForHttp(`${url}${healthPath}`, () => child.exitCode === null, script, {
      timeoutMs: options.startTimeoutMs,
    })
  } catch (error) {
    // A server that never answered would otherwise keep running, and keep its parent from exiting.
    await waitForExit(child, 'SIGKILL')
    throw error
  }
  let stopping = false
  child.once('exit', (code, signal) => {
    if (!stopping) process.stderr.write(`!!! ${script} exited mid-run (code ${code}, signal ${signal})\n`)
  })
  const tree = watchTree(() => [child.pid!])
  return {
    children: [child],
    url,
    cpuMs: () => tree.cpuMs() + (options.alsoCpu?.() ?? 0),
    databaseCpuMs: options.alsoCpu,
    peakRss: tree.peakRss,
    peakProcesses: tree.peakProcesses,
    resetPeak: tree.resetPeak,
    stop: async () => {
      stopping = true
      tree.stop()
      await waitForExit(child, 'SIGTERM')
    },
  }
}
