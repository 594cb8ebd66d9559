import Fastify, { LogController, type FastifyInstance } from 'fastify'
import type { Registry } from 'prom-client'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Db } from './db/types.js'
import { createAjv as ajv } from './platform/schemas/validator.js'
import surfacesPlugin from './platform/core/surfaces.js'
import type { Config } from './config.js'
import configPlugin from './platform/core/config.js'
import clockPlugin, { type Clock } from './platform/core/clock.js'
import errorsPlugin from './platform/core/errors.js'
import dbPlugin from './platform/core/db.js'
import gamesPlugin from './platform/games/index.js'
import { rewriteGamePath } from './platform/games/paths.js'
import httpPlugin, { MAX_PARAM_LENGTH, frameworkError } from './platform/http/http.js'
import { routeSurface } from './platform/core/paths.js'
import { strictSchema } from './platform/http/strict-schema.js'
import rateLimitPlugin from './platform/security/rate-limit.js'
import apiKeyPlugin from './platform/security/api-key.js'
import adminAuthPlugin from './platform/security/admin-auth.js'
import sessionsPlugin from './platform/security/sessions.js'
import openapiPlugin from './platform/openapi/index.js'
import healthPlugin from './platform/observability/health.js'
import eventsPlugin from './platform/core/events.js'
import consolePlugin from './platform/http/console.js'
import loggingPlugin, { requestIdOf } from './platform/core/logging.js'
import metricsPlugin from './platform/observability/metrics/index.js'
import clusterPlugin, { type Channel } from './platform/cluster/cluster.js'
import jobsPlugin from './platform/jobs/index.js'
import authentication from './features/authentication/index.js'
import users from './features/users/index.js'
import playerProfile from './features/player-profile/index.js'
import leaderboard from './features/leaderboard/index.js'
import validatedActions from './features/validated-actions/index.js'
import cloudSave from './features/cloud-save/index.js'
import remoteConfig from './features/remote-config/index.js'
import localization from './features/localization/index.js'
import news from './features/news/index.js'
import giftCodes from './features/gift-codes/index.js'
import emailSending from './features/email-sending/index.js'
import crashReporting from './features/crash-reporting/index.js'
import userFeedback from './features/user-feedback/index.js'
import userLogs from './features/user-logs/index.js'
import operators from './features/operators/index.js'
import settings from './features/settings/index.js'
import games from './features/games/index.js'
import webhooks from './features/webhooks/index.js'
import analytics from './features/analytics/index.js'
import featuresPlugin, { migrationsOf, type Feature } from './platform/core/features.js'

/**
 * The features, the one list of them: each folder under features/ is here once.
 * The 14 game features; then operators (the people who run the game: accounts, console sessions, the
 * audit log), settings (the configuration, read-only and secrets masked, for owners), webhooks (what
 * happens in the game, sent to the operators' other systems) and analytics (what the operator reads
 * every morning: daily series, retention, exact totals).
 */
export const FEATURES: readonly Feature[] = [
  authentication,
  users,
  playerProfile,
  leaderboard,
  validatedActions,
  cloudSave,
  remoteConfig,
  localization,
  news,
  giftCodes,
  emailSending,
  crashReporting,
  userFeedback,
  userLogs,
  operators,
  settings,
  games,
  webhooks,
  analytics,
]

/**
 * Every migration the app runs: the platform's (db/migrations/) and each feature's (its manifest's
 * `migrations`), gathered once here, where the features are listed. The server, `npm run migrate` and
 * the other commands hand it to db/migrate.ts, which never names a feature.
 */
export const MIGRATIONS = migrationsOf(FEATURES.map((feature) => feature.manifest))

export interface BuildOptions {
  config: Config
  /** Tests move time; production uses the system clock. */
  clock?: Clock
  /** A database prepared by the caller (tests); otherwise built from the config. */
  db?: Db
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void }
  /** In a cluster worker (WORKERS > 1): the channel to the primary, which keeps what the workers share. */
  cluster?: Channel
  /** The process's own metrics (observability/metrics/process.ts), made once by whoever owns the process. */
  processMetrics?: Registry
  /** The features to register; FEATURES unless a test adds one. */
  features?: readonly Feature[]
}

/**
 * How often Node looks for requests past their header or request deadline (its default, 30 s, would
 * let a deadline of 10 s run to 40 s): a tenth of the shorter deadline, between 100 ms and 1 s.
 */
function deadlineCheckInterval(config: Config): number {
  return Math.min(
    1000,
    Math.max(100, Math.floor(Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS) / 10)),
  )
}

/**
 * The app factory: the server and every test build the app here, so validation, errors and hooks
 * are the same everywhere. The registration list below is the map of the house.
 */
export async function buildApp({
  config,
  clock,
  db,
  logStream,
  cluster,
  processMetrics,
  features = FEATURES,
}: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, ...(logStream && { stream: logStream }) },
    // One line per request, written by the logging plugin (probes at debug), instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    // The id of a request (X-Request-Id when valid, else a UUID) is checked in requestIdOf: Fastify's
    // requestIdHeader would take any header value as it came.
    requestIdHeader: false,
    genReqId: requestIdOf,
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    // A server URL configured with a trailing slash makes every SDK send `//api/v1/...`: served as one
    // slash. Keys and limits still follow the matched route (paths.ts), never the raw target.
    // A game's admin routes (/api/v1/admin/games/{gameId}/…) are the routes without the prefix, for that game.
    rewriteUrl: rewriteGamePath,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: 1024 * 1024,
    frameworkErrors: frameworkError,
    // avvio's 10 s default per plugin would abort a start whose migrations take longer (a big table, DDL
    // on a busy MariaDB: 40 migrations already take 7 s there under load). The start's waits are bounded
    // where they happen (connect timeouts, the migration lock wait, the per-query bound).
    pluginTimeout: 0,
    // A client that sends its request slowly holds a socket and a file descriptor: bound every phase
    // (docs/deployment.md, "Timeouts"). Node checks the header and request deadlines on a timer, not per byte.
    connectionTimeout: config.HTTP_IDLE_TIMEOUT_MS,
    keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
    http: {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      connectionsCheckingInterval: deadlineCheckInterval(config),
    },
  }).withTypeProvider<TypeBoxTypeProvider>()

  // Bodies are never coerced ("5" for an integer is a 400); query strings and path params are.
  const bodyAjv = ajv({ coerceTypes: false })
  const httpAjv = ajv({ coerceTypes: 'array' })
  // Admin bodies and query strings are strict: their validators compile a copy of the
  // schema that refuses unknown properties, and keep them (removeAdditional would only drop them
  // again), so the error names the field. Headers stay open everywhere: clients send many.
  const adminBodyAjv = ajv({ coerceTypes: false, removeAdditional: false })
  const adminHttpAjv = ajv({ coerceTypes: 'array', removeAdditional: false })
  // One strict copy per shared schema, so Ajv's cache (keyed by the schema object) still compiles it once.
  const strictCopies = new WeakMap<object, object>()
  const strict = (schema: object) => {
    let copy = strictCopies.get(schema)
    if (!copy) strictCopies.set(schema, (copy = strictSchema(schema)))
    return copy
  }
  app.setValidatorCompiler(({ schema, httpPart, url }) => {
    if (routeSurface(url, false) === 'admin' && httpPart !== 'headers') {
      return httpPart === 'body' ? adminBodyAjv.compile(strict(schema)) : adminHttpAjv.compile(strict(schema))
    }
    return httpPart === 'body' ? bodyAjv.compile(schema) : httpAjv.compile(schema)
  })

  await app.register(configPlugin, { config })
  await app.register(clusterPlugin, { channel: cluster })
  await app.register(loggingPlugin)
  await app.register(surfacesPlugin)
  await app.register(clockPlugin, { clock })
  await app.register(eventsPlugin)
  await app.register(errorsPlugin)
  const manifests = features.map((feature) => feature.manifest)
  // The migrations of the features this app registers (a test's extra feature brings its own).
  const migrations = features === FEATURES ? MIGRATIONS : migrationsOf(manifests)
  await app.register(featuresPlugin, { features: manifests })
  await app.register(metricsPlugin, { processRegistry: processMetrics })
  await app.register(dbPlugin, { db, migrations })
  await app.register(gamesPlugin, { migrations })
  await app.register(httpPlugin)
  await app.register(rateLimitPlugin)
  await app.register(apiKeyPlugin)
  await app.register(adminAuthPlugin)
  await app.register(sessionsPlugin)
  await app.register(openapiPlugin)
  await app.register(healthPlugin, { migrations })
  await app.register(consolePlugin)
  // Maintenance out of the request path (sweeps of expired rows): the features add their jobs to it.
  await app.register(jobsPlugin)

  // The features, each one plugin: its app routes under /api/v1/app and its admin routes under
  // /api/v1/admin (always registered: admin-auth decides per request whether the admin API is open).
  for (const feature of features) await app.register(feature.plugin)

  return app
}

/**
 * Fastify's `trustProxy` from TRUST_PROXY: "true" trusts every hop, a number trusts that many hops
 * nearest the server, anything else is a comma list of addresses or CIDR ranges.
 */
export function parseTrustProxy(value: string): boolean | string | ((address: string, hop: number) => boolean) {
  const trimmed = value.trim()
  if (trimmed === '' || trimmed === 'false') return false
  if (trimmed === 'true') return true
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed)
    return (_address, hop) => hop < hops
  }
  return trimmed
}
