import { randomBytes } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import { parseEnv } from 'node:util'
import { Type, type Static } from '@sinclair/typebox'
import type { envSchema as EnvSchema } from 'env-schema'
import { engineNamed } from './db/engines/index.js'
import { DB_SETTINGS, dbHostProblem, dbReadHostProblem } from './db/settings.js'

/** The value shipped in `.env.example`: refused so that nobody runs production on it. */
export const EXAMPLE_API_KEY = 'change-me-to-a-long-random-string'
/** The PHP server's (horizOn Simple Server) `.env.example` value: operators moving over copy their old `.env`. */
export const PHP_EXAMPLE_API_KEY = 'change-me-to-a-secure-key'
const PLACEHOLDER_KEYS = [EXAMPLE_API_KEY, PHP_EXAMPLE_API_KEY]

const Bool = (defaultValue: boolean, description: string) => Type.Boolean({ default: defaultValue, description })

/**
 * Every setting Outpost reads, in one place. `loadConfig` validates it with `env-schema` (with type
 * coercion: env values are strings) and the `config` decoration is typed from it.
 */
export const ConfigSchema = Type.Object({
  API_KEY: Type.String({
    minLength: 16,
    not: { enum: PLACEHOLDER_KEYS },
    description: 'Key every game client sends as X-API-Key (at least 16 characters; example placeholders are refused)',
  }),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      not: { enum: PLACEHOLDER_KEYS },
      description: 'Key for the admin API (X-Admin-Key); unset = admin API absent; example placeholders are refused',
    }),
  ),
  HOST: Type.String({ default: '0.0.0.0', description: 'Interface to listen on' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: 'TCP port' }),
  ...DB_SETTINGS,
  RATE_LIMIT_ENABLED: Bool(true, 'Per-IP request limit on /api/v1/*'),
  RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 10,
    description: 'App API requests per second per client IP, sustained; beyond it (and its burst) 429',
  }),
  RATE_LIMIT_BURST_SECONDS: Type.Integer({
    minimum: 1,
    maximum: 60,
    default: 3,
    description:
      "Burst allowed on top of the sustained rates, in seconds' worth: a quiet client may send " +
      'RATE_LIMIT_PER_SECOND × this at once (admin: ADMIN_RATE_LIMIT_PER_SECOND × this)',
  }),
  ADMIN_RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    maximum: 1_000_000,
    default: 100,
    description: 'Admin API requests per second per admin credential (per IP before a credential is shown)',
  }),
  TRUST_PROXY: Type.String({
    default: '',
    description:
      'Proxies whose X-Forwarded-For is trusted: a comma list of their IPs/CIDRs (recommended), a hop count, or "true". ' +
      'A hop count or "true" lets any client that reaches the port directly forge its address (and dodge the per-IP ' +
      'rate limit): use them only when every packet comes through that many proxies',
  }),
  REDIS_URL: Type.String({ default: '', description: 'Redis for rate-limit counters shared by all instances' }),
  AUTH_MODE: Type.Union([Type.Literal('compat'), Type.Literal('strict')], {
    default: 'compat',
    description:
      'compat: the API key alone may act for any player (as the PHP server did); strict: player writes need the player session',
  }),
  SESSION_TTL_SECONDS: Type.Integer({ minimum: 60, default: 30 * 24 * 3600, description: 'Access token lifetime' }),
  REFRESH_TTL_SECONDS: Type.Integer({ minimum: 60, default: 180 * 24 * 3600, description: 'Refresh token lifetime' }),
  CLOUD_SAVE_MAX_BYTES: Type.Integer({
    minimum: 1,
    maximum: 64 * 1024 * 1024,
    default: 300_000,
    description: 'Largest cloud save (UTF-8 bytes)',
  }),
  DEFAULT_LANGUAGE: Type.String({
    pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$',
    default: 'en',
    description: 'Fallback language for localization (a language tag: en, de, pt-BR)',
  }),
  LEADERBOARD_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 60_000,
    default: 1000,
    description: 'How long a top page may be served from memory; 0: never',
  }),
  PROFILE_MAX_BADGES: Type.Integer({
    minimum: 0,
    maximum: 100,
    default: 3,
    description: 'Badges a player profile shows',
  }),
  PROFILE_MAX_UNLOCKS: Type.Integer({
    minimum: 0,
    maximum: 10_000,
    default: 25,
    description: 'Cosmetics a player can unlock',
  }),
  SMTP_URL: Type.String({ default: '', description: 'smtp:// or smtps:// URL; unset = e-mail disabled' }),
  EMAIL_FROM: Type.String({ default: 'Outpost <no-reply@localhost>', description: 'Sender of every e-mail' }),
  EMAIL_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 50,
    default: 5,
    description: 'Delivery attempts before an e-mail is marked failed',
  }),
  EMAIL_MAX_PER_USER_PER_HOUR: Type.Integer({
    minimum: 0,
    default: 10,
    description: 'E-mails a player can trigger through the app API per hour',
  }),
  EMAIL_POLL_INTERVAL_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 5000,
    description: 'How often the e-mail worker looks for due e-mails',
  }),
  PUBLIC_URL: Type.String({
    default: 'http://localhost:8080',
    description: 'Base URL for links in account e-mails and webhook messages',
  }),
  WEBHOOK_ALLOW_PRIVATE: Bool(
    false,
    'Allow webhook URLs whose host is a loopback, private, link-local or otherwise non-public address',
  ),
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({
    minimum: 1,
    maximum: 50,
    default: 8,
    description: 'Delivery attempts before a webhook delivery is marked failed',
  }),
  WEBHOOK_POLL_INTERVAL_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 1000,
    description: 'How often the webhook worker looks for due deliveries',
  }),
  APPLE_BUNDLE_ID: Type.String({
    default: '',
    description:
      "Sign in with Apple: the iOS app's bundle id (an accepted token audience); empty with APPLE_SERVICE_ID: Apple sign-in off",
  }),
  APPLE_SERVICE_ID: Type.String({
    default: '',
    description: 'Sign in with Apple: the Services ID used on the web and Android (an accepted token audience)',
  }),
  APPLE_JWKS_URL: Type.String({
    pattern: '^https?://',
    default: 'https://appleid.apple.com/auth/keys',
    description: "Apple's signing keys (JWKS)",
  }),
  GOOGLE_CLIENT_ID: Type.String({
    default: '',
    description: 'Sign in with Google: the OAuth client id (the id_token audience); empty: Google sign-in off',
  }),
  GOOGLE_CLIENT_SECRET: Type.String({
    default: '',
    description: 'Sign in with Google: the OAuth client secret; empty: Google sign-in off',
  }),
  GOOGLE_TOKEN_URL: Type.String({
    pattern: '^https?://',
    default: 'https://oauth2.googleapis.com/token',
    description: "Google's token endpoint, where authorization codes are exchanged",
  }),
  GOOGLE_JWKS_URL: Type.String({
    pattern: '^https?://',
    default: 'https://www.googleapis.com/oauth2/v3/certs',
    description: "Google's signing keys (JWKS)",
  }),
  CORS_ORIGINS: Type.String({ default: '*', description: '"*" or a comma list of allowed origins' }),
  HTTP_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description: 'Time a client has to send the request line and headers; past it: 408 and the connection closed',
  }),
  HTTP_REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 30_000,
    description: 'Time a client has to send the whole request, body included; past it: 408 and the connection closed',
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600_000,
    default: 10_000,
    description: 'How long an idle keep-alive connection stays open between requests',
  }),
  HTTP_IDLE_TIMEOUT_MS: Type.Integer({
    minimum: 1000,
    maximum: 3_600_000,
    default: 120_000,
    description: 'A connection on which no byte moves either way for this long is closed (a client that stops reading)',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
    { default: 'info', description: 'Least severe log line written' },
  ),
  MIGRATE_ON_START: Bool(true, 'Run pending migrations when the server starts'),
  WORKERS: Type.String({
    pattern: '^(auto|[0-9]{1,3})$',
    default: '1',
    description:
      'Server processes sharing the port (node:cluster): a number, or "auto" (or 0) for one per core. ' +
      '1 runs the server in a single process, without a cluster primary',
  }),
  CONSOLE_ENABLED: Bool(true, 'Serve the browser console at /console/ (it talks only to the admin API)'),
  ANALYTICS_ACTIVITY: Bool(
    true,
    'Record the days each player is active (analytics: active players, retention), in batches off the request path',
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      not: { enum: PLACEHOLDER_KEYS },
      description:
        'Bearer token GET /metrics requires from every caller; unset = /metrics answers only loopback callers',
    }),
  ),
})

/** The settings as loaded: DB_PORT is always set (the engine's own port when the environment gives none). */
export type Config = Omit<Static<typeof ConfigSchema>, 'DB_PORT'> & { DB_PORT: number }

/**
 * Where each setting of a loaded configuration came from, kept under a symbol (`{ ...config }` copies
 * it; JSON and Object.keys do not see it): a message then names the place that holds the value.
 */
const SOURCES = Symbol('setting sources')
type Sources = { envFile: string; fromFile: ReadonlySet<string>; fromEnv: ReadonlySet<string> }

/** `DB_PASS (set in the environment, …)`, `DB_PASS (set in .env)` or `DB_PASS (not set)`, for messages. */
export function whereSet(config: object, name: string): string {
  const sources = (config as { [SOURCES]?: Sources })[SOURCES]
  if (sources?.fromEnv.has(name)) return `${name} (set in the environment, which overrides ${sources.envFile})`
  if (sources?.fromFile.has(name)) return `${name} (set in ${sources.envFile})`
  return sources ? `${name} (not set)` : name
}

/**
 * Reads and validates the configuration. This is `env-schema`, the engine of `@fastify/env`, called
 * directly: Fastify needs `trustProxy` and the log level when the instance is created, so the config
 * must exist before `buildApp`. Throws one error naming every bad variable.
 */
export function loadConfig(env: Record<string, string | undefined>, options: { envFile?: string } = {}): Config {
  const fromFile = options.envFile && existsSync(options.envFile) ? parseEnv(readFileSync(options.envFile, 'utf8')) : {}
  // `PORT=` in a .env file means "use the default": Ajv would coerce "" to 0 or false instead.
  const merged = Object.fromEntries(
    Object.entries({ ...fromFile, ...env }).filter(([, value]) => value !== undefined && value !== ''),
  )
  let config: Config
  try {
    // Loaded when first needed (Ajv with it): `npm start -- --help` prints the schema without it.
    const { envSchema } = createRequire(import.meta.url)('env-schema') as { envSchema: typeof EnvSchema }
    config = envSchema<Config>({ schema: structuredClone(ConfigSchema), data: merged, env: false })
  } catch (error) {
    // describeConfigError repeats a refused value only for settings with a fixed list (never a key).
    throw Object.assign(error as Error, { settings: merged })
  }
  const given = (from: Record<string, string | undefined>) => new Set(Object.keys(from).filter((name) => from[name]))
  const sources: Sources = { envFile: options.envFile ?? '.env', fromFile: given(fromFile), fromEnv: given(env) }
  Object.assign(config, { [SOURCES]: sources })
  config.DB_PORT ??= engineNamed(config.DB_DRIVER).defaultPort ?? 0
  // A list of hosts (or one host:port) is read here once, so that a bad one stops the start with its fix.
  const hostProblem = dbHostProblem(config, (name) => whereSet(config, name))
  if (hostProblem) throw new Error(hostProblem)
  const readHostProblem = dbReadHostProblem(config, (name) => whereSet(config, name))
  if (readHostProblem) throw new Error(readHostProblem)
  // Node refuses a header deadline later than the whole request's: say so in the operator's terms.
  if (config.HTTP_HEADERS_TIMEOUT_MS > config.HTTP_REQUEST_TIMEOUT_MS) {
    throw new Error('env/HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS')
  }
  return config
}

/**
 * How many worker processes WORKERS asks for: `auto` and 0 mean one per core the process may use
 * (os.availableParallelism, which respects CPU affinity), and the count is at least 1.
 */
export function workerCount(workers: string, cores = availableParallelism()): number {
  const asked = workers === 'auto' ? 0 : Number(workers)
  return asked === 0 ? Math.max(1, cores) : asked
}

interface SettingSchema {
  type?: string
  default?: unknown
  description?: string
  anyOf?: Array<{ const?: unknown }>
}

const settingSchemas = ConfigSchema.properties as Record<string, SettingSchema>

/** The values a setting with a fixed list takes (a union of literals, or a boolean); null for any other. */
export function allowedValues(name: string): string[] | null {
  const schema = settingSchemas[name]
  if (!schema) return null
  if (schema.type === 'boolean') return ['true', 'false']
  const values = schema.anyOf?.map((option) => option.const)
  return values?.length && values.every((value) => typeof value === 'string') ? (values as string[]) : null
}

/** Turns Ajv's env error into the one line the operator needs: which variable, what is wrong. */
export function describeConfigError(error: Error): string {
  const given = (error as { settings?: Record<string, unknown> }).settings ?? {}
  const oneOf = (name: string) => {
    const value = given[name]
    const got = typeof value === 'string' ? ` (got "${value}")` : ''
    return `${name} must be one of ${allowedValues(name)?.join(', ')}${got}`
  }
  const detail = error.message
    .replace(/env must have required property '(\w+)'/g, '$1 is required')
    // `not` is used for the placeholder keys only: say so instead of Ajv's "must NOT be valid".
    .replace(/env\/(\w+) must NOT be valid/g, '$1 is an example placeholder: set a random key of your own')
    // A union of literals fails once per literal, then once as a whole: one sentence naming the list.
    .replace(/(?:env\/(\w+) must be equal to constant, )+env\/\1 must match a schema in anyOf/g, (_m, name: string) =>
      oneOf(name),
    )
    .replace(/env\/(\w+) must be boolean/g, (_m, name: string) => oneOf(name))
    .replace(/ must NOT have fewer than (\d+) characters/g, ' must have at least $1 characters')
    .replace(/env\/(\w+)/g, '$1')
  return `Invalid configuration: ${detail}`
}

/** A setting's default as the help shows it. */
function shownDefault(name: string, schema: SettingSchema): string {
  if (schema.default === '') return 'empty'
  if (schema.default !== undefined) return String(schema.default)
  return (ConfigSchema.required as readonly string[] | undefined)?.includes(name) ? 'required' : 'unset'
}

/**
 * `npm start -- --help`: the usage and every setting with its default and the first sentence of its
 * description, read from the schema above (so the list cannot fall behind it).
 */
export function usageText(): string {
  const lines = [
    'Usage: npm start [-- --help]',
    '',
    'Starts Outpost: the app API for game clients, the admin API, the console and the API docs on one port.',
    'Settings come from the environment and from ./.env (on a first start without API_KEY, a .env with new',
    'keys is written). A bad value stops the start with a line naming it.',
    '',
    'Options:',
    '  -h, --help    print this text and exit (nothing is started, written or opened)',
    '',
    'Other commands: npm run migrate, npm run backup -- FILE, npm run operator (prints its usage),',
    'npm run import:php -- --help, npm run migrate-data -- --help.',
    'Start-up errors and their fixes: docs/troubleshooting.md',
    '',
    'Settings (name, default, meaning):',
  ]
  for (const [name, schema] of Object.entries(settingSchemas)) {
    const choices = allowedValues(name)
    const sentence = (schema.description ?? '').split(/(?<=[a-z0-9)"])\. /)[0]!.replace(/\.$/, '')
    lines.push(`  ${name} = ${shownDefault(name, schema)}${choices ? `  (one of ${choices.join(', ')})` : ''}`)
    lines.push(`      ${sentence}`)
  }
  return `${lines.join('\n')}\n`
}

/**
 * On a fresh checkout nobody has an API key yet: write a `.env` with generated keys so that
 * `npm start` works without editing anything, and return the keys so the caller can print them once.
 */
export function ensureEnvFile(path: string, env: Record<string, string | undefined>): Record<string, string> | null {
  if (existsSync(path) || env.API_KEY) return null
  const keys = { API_KEY: randomBytes(24).toString('base64url'), ADMIN_API_KEY: randomBytes(24).toString('base64url') }
  const lines = [
    '# Written by Outpost on first start. See .env.example and the README for every setting.',
    ...Object.entries(keys).map(([name, value]) => `${name}=${value}`),
    '',
  ]
  writeFileSync(path, lines.join('\n'), { mode: 0o600 })
  return keys
}
