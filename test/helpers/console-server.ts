import { spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { ADMIN_KEY, API_KEY } from './app.js'
import { freePort } from '../../bench/processes.js'
import { spawnServer } from './server-process.js'

export { adminApi } from './server-process.js'

/**
 * What the console's browser tests share: the real server (node dist/server.js) on a fresh SQLite file
 * and a free 127.0.0.1 port, operators made with the CLI, the app and admin APIs called directly, and
 * a page that records what the CSP refused and every uncaught error.
 */

export const ROOT = new URL('../../../', import.meta.url).pathname
export const SHOTS = join(ROOT, 'test-output', 'screenshots')
export const PASSWORD = 'console-test-password-1'
export const STEP_MS = 10_000

export interface Server {
  base: string
  env: Record<string, string>
  process: ChildProcess
}

/** The server on a fresh SQLite file and a free port; `extra` adds or overrides settings. */
export async function startServer(t: Test, extra: Record<string, string> = {}): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-console-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dir,
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    DB_DRIVER: 'sqlite',
    DB_PATH: join(dir, 'outpost.db'),
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'warn',
    EMAIL_POLL_INTERVAL_MS: '60000',
    ...extra,
  }
  const { base, child } = await spawnServer(t, env)
  return { base, env, process: child }
}

/** The operator CLI, as an owner would run it on the server (password from OPERATOR_PASSWORD). */
export function addOperator(env: Record<string, string>, name: string, role: string) {
  const result = spawnSync('npm', ['run', '--silent', 'operator', '--', 'add', name, '--role', role], {
    cwd: ROOT,
    env: { ...env, OPERATOR_PASSWORD: PASSWORD },
    encoding: 'utf8',
    timeout: 30_000,
  })
  if (result.status !== 0) throw new Error(`operator add failed: ${result.stdout} ${result.stderr}`)
}

export async function appApi(base: string, method: string, path: string, body?: unknown, accessToken?: string) {
  const res = await fetch(`${base}/api/v1/app${path}`, {
    method,
    headers: {
      'x-api-key': API_KEY,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(accessToken && { authorization: `Bearer ${accessToken}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(STEP_MS),
  })
  return { status: res.status, body: (await res.json()) as any }
}

/** A GET of the admin API as text with the given Accept (the CSV answers). */
export async function adminText(base: string, path: string, accept: string) {
  const res = await fetch(`${base}/api/v1/admin${path}`, {
    headers: { 'x-admin-key': ADMIN_KEY, accept },
    signal: AbortSignal.timeout(STEP_MS),
  })
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() }
}

/** A new anonymous player: its id, and the access token the session-only routes (validated runs) want. */
export async function signUp(base: string, username: string): Promise<{ id: string; accessToken: string }> {
  const res = await appApi(base, 'POST', '/user-management/signup', { type: 'ANONYMOUS', username })
  if (res.status !== 201) throw new Error(`signup failed: ${JSON.stringify(res.body)}`)
  return { id: res.body.userId as string, accessToken: res.body.accessToken as string }
}

/** A page that records what the CSP refused and every uncaught error, so a test can say "none". */
export async function openPage(
  browser: Browser,
  colorScheme: 'light' | 'dark' = 'light',
  viewport = { width: 1280, height: 860 },
) {
  const context = await browser.newContext({ colorScheme, viewport, acceptDownloads: true })
  context.setDefaultTimeout(STEP_MS)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy|Refused to/i.test(message.text()))
      problems.push(message.text())
  })
  page.on('pageerror', (error) => problems.push(error.message))
  return { context, page, problems }
}

/** Signs in; `waitFor` is what shows once the shell is there (the nav link, or the narrow screen's menu). */
export async function signIn(page: Page, base: string, username: string, narrow = false) {
  await page.goto(`${base}/console/`)
  await page.getByLabel('Username').fill(username)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  if (narrow) await page.getByRole('button', { name: 'Menu' }).waitFor()
  else await page.getByRole('link', { name: 'Overview' }).waitFor()
}

/**
 * Polls `check` until it holds or `ms` pass, for a state the page reaches a render later (focus).
 * The assertion after it states what must hold; a state never reached fails there.
 */
export async function eventually(check: () => Promise<boolean>, ms = 5000) {
  const deadline = Date.now() + ms
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
}

export async function shoot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true })
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme })
    await page.screenshot({ path: join(SHOTS, `${name}-${scheme}.png`), fullPage: true })
  }
  await page.emulateMedia({ colorScheme: 'light' })
}
