import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createMysqlDatabase, dropMysqlDatabase, mysqlSettings } from '../../bench/mysql.js'
import { createPostgresDatabase, dropPostgresDatabase, postgresSettings } from '../../bench/postgres.js'
import { ENGINE_NAMES, type EngineName } from '../../db/engine.js'
import type { Test } from 'tap'
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import type { Registry } from 'prom-client'
import { buildApp } from '../../app.js'
import { processMetrics } from '../../platform/observability/metrics/index.js'
import type { Feature } from '../../platform/core/features.js'
import { loadConfig, type Config } from '../../config.js'
import { PASSWORD_PARAMS, useHashParams } from '../../platform/security/passwords.js'
import { addBystander, bystanderOn } from './bystander.js'

export type Dialect = EngineName

export const API_KEY = 'test-api-key-0123456789'
export const ADMIN_KEY = 'test-admin-key-0123456789'

/**
 * The password hashes of the suite's own process: scrypt at N = 2^10, r = 8, p = 1, a few milliseconds
 * where the production parameters take a third of a second or more. Hundreds of sign-ins would
 * otherwise cost minutes of CPU; the hashes stay real (salted, verified, their parameters stored with
 * them). Servers the tests start as processes hash at production strength.
 */
export const TEST_HASH_PARAMS = { N: 2 ** 10, r: 8, p: 1 } as const
useHashParams(TEST_HASH_PARAMS)

/** Production hash parameters for the rest of `t`: for the tests about hashing itself (strength, cost, upgrade). */
export function withProductionHashes(t: Test) {
  useHashParams(PASSWORD_PARAMS)
  t.teardown(() => useHashParams(TEST_HASH_PARAMS))
}

export const APP = '/api/v1/app'
export const ADMIN = '/api/v1/admin'

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public ms = Date.parse('2026-11-22T10:00:00.000Z')) {}
  now() {
    return this.ms
  }
  advance(ms: number) {
    this.ms += ms
  }
}

/**
 * The database servers the tests may use, by engine: the variable that names one, and how to make
 * and drop a database of a test's own there. SQLite needs none (a temporary file).
 */
const SERVERS: Record<Exclude<Dialect, 'sqlite'>, DatabaseServer> = {
  mysql: {
    variable: 'TEST_MYSQL_URL',
    create: createMysqlDatabase,
    drop: dropMysqlDatabase,
    settings: mysqlSettings,
  },
  postgres: {
    variable: 'TEST_POSTGRES_URL',
    create: createPostgresDatabase,
    drop: dropPostgresDatabase,
    settings: postgresSettings,
  },
}

interface DatabaseServer {
  variable: string
  create(url: string, name: string): Promise<unknown>
  drop(url: string, name: string): Promise<unknown>
  settings(url: string, name: string, poolSize: number): Record<string, string>
}

/** The URL of the test server of `dialect`, or undefined when its variable is not set. */
export function serverUrl(dialect: Exclude<Dialect, 'sqlite'>): string | undefined {
  return process.env[SERVERS[dialect].variable] || undefined
}

/**
 * The engines a test runs on, in order: all of them, or those TEST_ENGINES lists (`postgres`,
 * `sqlite,mysql`), so that a run can take one engine at a time.
 */
export const DIALECTS: readonly Dialect[] = chosenEngines(process.env.TEST_ENGINES)

function chosenEngines(list: string | undefined): Dialect[] {
  if (!list) return [...ENGINE_NAMES]
  const names = list.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(ENGINE_NAMES as readonly string[]).includes(name))
  if (unknown.length) throw new Error(`TEST_ENGINES names ${unknown.join(', ')}: use ${ENGINE_NAMES.join(', ')}`)
  return ENGINE_NAMES.filter((name) => names.includes(name))
}

let processRegistry: Registry | undefined
/** The test process's own metrics, made once, as server.ts does for a server process. */
export function testProcessMetrics(): Registry {
  processRegistry ??= processMetrics()
  return processRegistry
}

/**
 * Runs `body` once per engine of DIALECTS: SQLite always, a server engine when its variable
 * (TEST_MYSQL_URL, TEST_POSTGRES_URL) is set. Without it that engine's leg is skipped with a visible
 * notice; with it, an unreachable server fails the test.
 */
export function eachDialect(tap: Test, body: (t: Test, dialect: Dialect) => Promise<void>) {
  for (const dialect of DIALECTS) {
    if (dialect === 'sqlite' || serverUrl(dialect)) tap.test(dialect, (t) => body(t, dialect))
    else {
      const skip = `${SERVERS[dialect].variable} is not set: the ${dialect} leg did not run`
      tap.test(dialect, { skip }, async () => {})
    }
  }
}

/** A fresh, empty database for one test: a temp SQLite file, or a new database on the server, dropped after. */
export async function freshDatabase(t: Test, dialect: Dialect): Promise<Record<string, string>> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-test-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }))
    return { DB_DRIVER: 'sqlite', DB_PATH: join(dir, 'test.db') }
  }
  const name = `outpost_t_${randomBytes(6).toString('hex')}`
  const server = SERVERS[dialect]
  const url = serverUrl(dialect)
  if (!url) throw new Error(`${server.variable} is not set: no ${dialect} server to test on`)
  await server.create(url, name)
  t.teardown(() => server.drop(url, name))
  return server.settings(url, name, 8)
}

export function testConfig(env: Record<string, string | undefined>): Config {
  return loadConfig({
    API_KEY,
    ADMIN_API_KEY: ADMIN_KEY,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_ENABLED: 'false',
    ...env,
  })
}

export interface TestApp {
  app: FastifyInstance
  clock: TestClock
  env: Record<string, string>
  /** An app request with the API key (and more headers as given). */
  call(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
  /** An admin request with the admin key. */
  admin(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse>
}

/** The app, built with the production factory over a fresh database; closed when the test ends. */
export async function buildTestApp(
  t: Test,
  dialect: Dialect,
  options: {
    env?: Record<string, string | undefined>
    clock?: TestClock
    dbEnv?: Record<string, string>
    features?: readonly Feature[]
    /**
     * The bystander game beside `default` (bystander.ts; SQLite only): on unless TEST_BYSTANDER=off.
     * `false` for a test whose point is a server with one game.
     */
    bystander?: boolean
    /** Where the app's log lines go (`logLines()` of helpers/faults.ts); LOG_LEVEL in `env` lets them through. */
    logStream?: { write(line: string): void }
  } = {},
): Promise<TestApp> {
  const dbEnv = options.dbEnv ?? (await freshDatabase(t, dialect))
  const clock = options.clock ?? new TestClock()
  const env = { ...dbEnv, ...(options.env as Record<string, string>) }
  const app = await buildApp({
    config: testConfig(env),
    clock,
    processMetrics: testProcessMetrics(),
    features: options.features,
    logStream: options.logStream,
  })
  t.teardown(() => app.close())
  // Added before the app is ready (the registry reads the games then), so the test still adds routes.
  if ((options.bystander ?? true) && bystanderOn()) {
    await addBystander(
      app,
      (DB_PATH) =>
        buildApp({
          config: testConfig({ DB_DRIVER: 'sqlite', DB_PATH }),
          clock: new TestClock(),
          processMetrics: testProcessMetrics(),
        }),
      { extraMigrations: options.features !== undefined },
    )
  }
  // A probe of the core user-scoped hook, which the foundation's own routes do not use.
  app.post(
    `${APP}/__test/user-scoped`,
    { schema: { hide: true }, preHandler: app.auth.userScoped },
    async (request) => request.identity,
  )
  return {
    app,
    clock,
    env,
    call: (o) => app.inject({ ...o, url: `${APP}${o.url}`, headers: { 'x-api-key': API_KEY, ...o.headers } }),
    admin: (o) => app.inject({ ...o, url: `${ADMIN}${o.url}`, headers: { 'x-admin-key': ADMIN_KEY, ...o.headers } }),
  }
}

/**
 * Readies the app and stops its background writers (jobs, activity marks, webhook deliveries, of
 * every game made so far, the banned-players reload, the games' change-counter read), which poll on timers:
 * after it, the app sends only what the test asks for.
 * After ready: the workers start when the app is ready, which a first request would otherwise do.
 */
export async function stopBackgroundWork(
  app: FastifyInstance,
  { watchGames = false }: { watchGames?: boolean } = {},
): Promise<void> {
  await app.ready()
  // Kept by a test of what another instance's writes do here (a key revoked there).
  if (!watchGames) app.games.stopWatching()
  await app.jobs.stop()
  // Every game's: a test's second game has its own recorder and workers.
  for (const [, recorder] of app.analyticsRecorders.entries()) await recorder.stop()
  for (const [, worker] of app.webhookWorkers.entries()) await worker.stop()
  for (const [, bans] of app.bannedPlayers.entries()) await bans.stop()
}

/** The house error body, checked field by field. */
export function assertError(
  t: Test,
  response: { statusCode: number; json(): any },
  status: number,
  code: string,
): Record<string, unknown> {
  const body = response.json()
  t.equal(response.statusCode, status, `status ${status} (${code})`)
  t.equal(body.statusCode, status)
  t.equal(body.code, code)
  t.type(body.error, 'string')
  t.type(body.message, 'string')
  t.notMatch(JSON.stringify(body), /at .*\.js:\d+|SELECT |INSERT /i, 'no stack trace or SQL')
  if (code === 'VALIDATION_ERROR') {
    // Every validation error says where, as `details`.
    const details = body.details as Array<{ path?: unknown; message?: unknown }> | undefined
    t.ok(
      Array.isArray(details) &&
        details.length > 0 &&
        details.every((d) => typeof d.path === 'string' && typeof d.message === 'string'),
      'details: [{ path, message }]',
    )
  }
  return body
}
