import { spawn, type ChildProcess } from 'node:child_process'
import type { Test } from 'tap'
import { ADMIN_KEY, API_KEY } from './app.js'
import { freePort } from '../../bench/processes.js'

/**
 * Real server processes (node dist/server.js) for the tests that need several on one database or a
 * kill -9: started on a free port with the test keys, stopped with SIGTERM (SIGKILL after 5 s) at the
 * test's end.
 */
const ROOT = new URL('../../../', import.meta.url).pathname

export interface Server {
  base: string
  child: ChildProcess
  /** The server's log lines (JSON, at its LOG_LEVEL) that match `pattern`, parsed; the last 5,000 lines are kept. */
  logged(pattern: RegExp): Array<Record<string, any>>
}

const KEPT_LOG_LINES = 5000

/**
 * Spawns the built server with exactly `env` (its port read from PORT) and waits until /health
 * answers; stopped when the test ends.
 */
export async function spawnServer(t: Test, env: Record<string, string>): Promise<Server> {
  const child = spawn(process.execPath, ['dist/server.js'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const lines: string[] = []
  let partial = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n')
    partial = parts.pop() ?? ''
    lines.push(...parts)
    if (lines.length > KEPT_LOG_LINES) lines.splice(0, lines.length - KEPT_LOG_LINES)
  })
  const logged = (pattern: RegExp) =>
    lines.filter((line) => pattern.test(line)).map((line) => JSON.parse(line) as Record<string, any>)
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
        child.once('exit', () => {
          clearTimeout(kill)
          resolve()
        })
        child.kill('SIGTERM')
      }),
  )
  const base = `http://127.0.0.1:${env.PORT}`
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`)
    try {
      if ((await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) })).ok) return { base, child, logged }
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`the server did not start within 60 s: ${stderr}`)
}

/** A server on the given database with the test keys, on a free port; `env` adds or overrides settings. */
export async function startServer(
  t: Test,
  dbEnv: Record<string, string>,
  env: Record<string, string>,
): Promise<Server> {
  return spawnServer(t, {
    PATH: process.env.PATH ?? '',
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    EMAIL_POLL_INTERVAL_MS: '3600000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...dbEnv,
    ...env,
  })
}

export async function adminApi(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1/admin${path}`, {
    method,
    headers: { 'x-admin-key': ADMIN_KEY, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  return { status: res.status, body: (await res.json()) as any }
}
