import Fastify, { type FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { Ajv, type Options as AjvOptions } from 'ajv'
import addFormats from 'ajv-formats'
import type { Db } from './db/types.js'
import { lowercaseUuidKeyword } from './schemas/common.js'
import surfacesPlugin from './plugins/core/surfaces.js'
import { parseTrustProxy, type Config } from './config.js'
import configPlugin from './plugins/core/config.js'
import clockPlugin, { type Clock } from './plugins/core/clock.js'
import errorsPlugin from './plugins/core/errors.js'
import dbPlugin from './plugins/core/db.js'
import httpPlugin, { MAX_PARAM_LENGTH, frameworkError } from './plugins/core/http.js'
import rateLimitPlugin from './plugins/core/rate-limit.js'
import apiKeyPlugin from './plugins/core/api-key.js'
import adminAuthPlugin from './plugins/core/admin-auth.js'
import sessionsPlugin from './plugins/core/sessions.js'
import openapiPlugin from './plugins/core/openapi.js'
import healthPlugin from './plugins/core/health.js'
import { ADMIN_PREFIX, APP_PREFIX } from './plugins/core/paths.js'
import authentication from './plugins/authentication/index.js'
import users from './plugins/users/index.js'
import usersAdmin from './plugins/users/admin.js'
import playerProfile from './plugins/player-profile/index.js'
import playerProfileAdmin from './plugins/player-profile/admin.js'
import leaderboard from './plugins/leaderboard/index.js'
import leaderboardAdmin from './plugins/leaderboard/admin.js'
import validatedActions from './plugins/validated-actions/index.js'
import validatedActionsAdmin from './plugins/validated-actions/admin.js'
import cloudSave from './plugins/cloud-save/index.js'
import remoteConfig from './plugins/remote-config/index.js'
import remoteConfigAdmin from './plugins/remote-config/admin.js'
import localization from './plugins/localization/index.js'
import localizationAdmin from './plugins/localization/admin.js'
import news from './plugins/news/index.js'
import newsAdmin from './plugins/news/admin.js'
import emailSending from './plugins/email-sending/index.js'
import emailSendingAdmin from './plugins/email-sending/admin.js'
import emailWorker from './plugins/email-sending/worker.js'
import crashReporting from './plugins/crash-reporting/index.js'
import crashReportingAdmin from './plugins/crash-reporting/admin.js'
import userFeedback from './plugins/user-feedback/index.js'
import userFeedbackAdmin from './plugins/user-feedback/admin.js'
import userLogs from './plugins/user-logs/index.js'
import userLogsAdmin from './plugins/user-logs/admin.js'
import giftCodes from './plugins/gift-codes/index.js'
import giftCodesAdmin from './plugins/gift-codes/admin.js'

export interface BuildOptions {
  config: Config
  /** Tests move time; production uses the system clock. */
  clock?: Clock
  /** A database prepared by the caller (tests); otherwise built from the config. */
  db?: Db
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void }
}

function ajv(options: AjvOptions) {
  const instance = new Ajv({ useDefaults: true, removeAdditional: true, allErrors: false, strict: false, ...options })
  addFormats.default(instance, ['uuid', 'date-time', 'date', 'email', 'uri'])
  instance.addKeyword(lowercaseUuidKeyword)
  return instance
}

/**
 * How often Node looks for requests past their header or request deadline (its default, 30 s, would
 * let a deadline of 10 s run to 40 s): a tenth of the shorter deadline, between 100 ms and 1 s.
 */
function deadlineCheckInterval(config: Config): number {
  return Math.min(1000, Math.max(100, Math.floor(Math.min(config.HTTP_HEADERS_TIMEOUT_MS, config.HTTP_REQUEST_TIMEOUT_MS) / 10)))
}

/**
 * The app factory: the server and every test build the app here, so validation, errors and hooks
 * are the same everywhere. The registration list below is the map of the house.
 */
export async function buildApp({ config, clock, db, logStream }: BuildOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: config.LOG_LEVEL, ...(logStream && { stream: logStream }) },
    trustProxy: parseTrustProxy(config.TRUST_PROXY),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    bodyLimit: 1024 * 1024,
    frameworkErrors: frameworkError,
    // A client that sends its request slowly holds a socket and a file descriptor: bound every phase
    // (README, "HTTP timeouts"). Node checks the header and request deadlines on a timer, not per byte.
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
  app.setValidatorCompiler(({ schema, httpPart }) =>
    httpPart === 'body' ? bodyAjv.compile(schema) : httpAjv.compile(schema),
  )

  await app.register(configPlugin, { config })
  await app.register(surfacesPlugin)
  await app.register(clockPlugin, { clock })
  await app.register(errorsPlugin)
  await app.register(dbPlugin, { db })
  await app.register(httpPlugin)
  await app.register(rateLimitPlugin)
  await app.register(apiKeyPlugin)
  await app.register(adminAuthPlugin)
  await app.register(sessionsPlugin)
  await app.register(openapiPlugin)
  await app.register(healthPlugin)

  // The 14 features: app routes under /api/v1/app, admin routes under /api/v1/admin (always
  // registered: admin-auth decides per request whether the admin API is open).
  await app.register(authentication, { prefix: APP_PREFIX })
  await app.register(users, { prefix: APP_PREFIX })
  await app.register(usersAdmin, { prefix: ADMIN_PREFIX })
  await app.register(playerProfile, { prefix: APP_PREFIX })
  await app.register(playerProfileAdmin, { prefix: ADMIN_PREFIX })
  await app.register(leaderboard, { prefix: APP_PREFIX })
  await app.register(leaderboardAdmin, { prefix: ADMIN_PREFIX })
  await app.register(validatedActions, { prefix: APP_PREFIX })
  await app.register(validatedActionsAdmin, { prefix: ADMIN_PREFIX })
  await app.register(cloudSave, { prefix: APP_PREFIX })
  await app.register(remoteConfig, { prefix: APP_PREFIX })
  await app.register(remoteConfigAdmin, { prefix: ADMIN_PREFIX })
  await app.register(localization, { prefix: APP_PREFIX })
  await app.register(localizationAdmin, { prefix: ADMIN_PREFIX })
  await app.register(news, { prefix: APP_PREFIX })
  await app.register(newsAdmin, { prefix: ADMIN_PREFIX })
  await app.register(emailSending, { prefix: APP_PREFIX })
  await app.register(emailSendingAdmin, { prefix: ADMIN_PREFIX })
  await app.register(emailWorker)
  await app.register(crashReporting, { prefix: APP_PREFIX })
  await app.register(crashReportingAdmin, { prefix: ADMIN_PREFIX })
  await app.register(userFeedback, { prefix: APP_PREFIX })
  await app.register(userFeedbackAdmin, { prefix: ADMIN_PREFIX })
  await app.register(userLogs, { prefix: APP_PREFIX })
  await app.register(userLogsAdmin, { prefix: ADMIN_PREFIX })
  await app.register(giftCodes, { prefix: APP_PREFIX })
  await app.register(giftCodesAdmin, { prefix: ADMIN_PREFIX })

  return app
}
