import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import {
  allowedValues,
  ConfigSchema,
  describeConfigError,
  EXAMPLE_API_KEY,
  ensureEnvFile,
  loadConfig,
  PHP_EXAMPLE_API_KEY,
  usageText,
} from '../../config.js'
import { parseTrustProxy } from '../../app.js'

const KEY = 'k'.repeat(20)

t.test('defaults as documented', async (t) => {
  const config = loadConfig({ API_KEY: KEY })
  t.match(config, {
    HOST: '0.0.0.0',
    PORT: 8080,
    DB_DRIVER: 'sqlite',
    DB_PATH: './data/outpost.db',
    DB_SSL: 'off',
    DB_SSL_CA: '',
    RATE_LIMIT_ENABLED: true,
    RATE_LIMIT_PER_SECOND: 10,
    AUTH_MODE: 'compat',
    CLOUD_SAVE_MAX_BYTES: 300000,
    DEFAULT_LANGUAGE: 'en',
    PROFILE_MAX_BADGES: 3,
    PROFILE_MAX_UNLOCKS: 25,
    CORS_ORIGINS: '*',
    MIGRATE_ON_START: true,
    SESSION_TTL_SECONDS: 2592000,
    REFRESH_TTL_SECONDS: 15552000,
    EMAIL_MAX_ATTEMPTS: 5,
    EMAIL_MAX_PER_USER_PER_HOUR: 10,
  })
  t.equal(config.ADMIN_API_KEY, undefined, 'admin API off unless configured')
})

t.test('values are coerced from strings; empty means default', async (t) => {
  const config = loadConfig({
    API_KEY: KEY,
    PORT: '9000',
    RATE_LIMIT_ENABLED: 'false',
    DB_POOL_SIZE: '',
    AUTH_MODE: 'strict',
  })
  t.equal(config.PORT, 9000)
  t.equal(config.RATE_LIMIT_ENABLED, false)
  t.equal(config.DB_POOL_SIZE, 10)
  t.equal(config.AUTH_MODE, 'strict')
})

t.test('a bad value stops the start with one line naming the variable', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{}, /API_KEY is required/],
    [{ API_KEY: 'short' }, /API_KEY/],
    [{ API_KEY: EXAMPLE_API_KEY }, /^Invalid configuration: API_KEY is an example placeholder/],
    [{ API_KEY: PHP_EXAMPLE_API_KEY }, /^Invalid configuration: API_KEY is an example placeholder/],
    [
      { API_KEY: KEY, ADMIN_API_KEY: PHP_EXAMPLE_API_KEY },
      /^Invalid configuration: ADMIN_API_KEY is an example placeholder/,
    ],
    [
      { API_KEY: KEY, ADMIN_API_KEY: EXAMPLE_API_KEY },
      /^Invalid configuration: ADMIN_API_KEY is an example placeholder/,
    ],
    [{ API_KEY: KEY, PORT: 'eighty' }, /PORT must be integer/],
    [{ API_KEY: KEY, DB_DRIVER: 'oracle' }, /DB_DRIVER/],
    [{ API_KEY: KEY, AUTH_MODE: 'loose' }, /AUTH_MODE/],
    [{ API_KEY: KEY, RATE_LIMIT_ENABLED: 'maybe' }, /RATE_LIMIT_ENABLED/],
    [{ API_KEY: KEY, ADMIN_API_KEY: 'tiny' }, /ADMIN_API_KEY/],
  ]
  for (const [env, pattern] of cases) {
    try {
      loadConfig(env)
      t.fail(`accepted ${JSON.stringify(env)}`)
    } catch (error) {
      const line = describeConfigError(error as Error)
      t.match(line, pattern, line)
      t.notMatch(line, /\n/, 'one line')
      t.match(line, /^Invalid configuration: /)
    }
  }
})

t.test("DB_PORT defaults to the engine's own port; a set one stays", async (t) => {
  t.equal(loadConfig({ API_KEY: KEY, DB_DRIVER: 'mysql' }).DB_PORT, 3306)
  t.equal(loadConfig({ API_KEY: KEY, DB_DRIVER: 'postgres' }).DB_PORT, 5432)
  t.equal(loadConfig({ API_KEY: KEY, DB_DRIVER: 'postgres', DB_PORT: '6543' }).DB_PORT, 6543)
  t.equal(loadConfig({ API_KEY: KEY }).DB_PORT, 0, 'SQLite listens on no port')
})

t.test('a setting with a fixed list names the allowed values once', async (t) => {
  // Every setting whose schema is a union of literals or a boolean, found in the schema itself.
  const fixed = Object.keys(ConfigSchema.properties).filter((name) => allowedValues(name))
  t.same(fixed, [
    'DB_DRIVER',
    'DB_SSL',
    'RATE_LIMIT_ENABLED',
    'AUTH_MODE',
    'WEBHOOK_ALLOW_PRIVATE',
    'LOG_LEVEL',
    'MIGRATE_ON_START',
    'CONSOLE_ENABLED',
    'ANALYTICS_ACTIVITY',
  ])
  t.same(allowedValues('AUTH_MODE'), ['compat', 'strict'])
  t.same(allowedValues('LOG_LEVEL'), ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  t.same(allowedValues('DB_DRIVER'), ['sqlite', 'mysql', 'postgres'])
  t.same(allowedValues('DB_SSL'), ['off', 'require', 'verify'])
  t.equal(allowedValues('PORT'), null, 'not a fixed list')
  for (const name of fixed) {
    const bad = name === 'DB_DRIVER' ? 'oracle' : 'x'
    try {
      loadConfig({ API_KEY: KEY, [name]: bad })
      t.fail(`${name}=${bad} accepted`)
    } catch (error) {
      const line = describeConfigError(error as Error)
      t.equal(
        line,
        `Invalid configuration: ${name} must be one of ${allowedValues(name)!.join(', ')} (got "${bad}")`,
        line,
      )
      t.notMatch(line, /constant|anyOf|boolean/, `${name}: none of the validator's words`)
    }
  }
  try {
    loadConfig({ API_KEY: KEY, PORT: 'x', AUTH_MODE: 'loose' })
  } catch (error) {
    t.equal(
      describeConfigError(error as Error),
      'Invalid configuration: PORT must be integer, AUTH_MODE must be one of compat, strict (got "loose")',
      'with another bad setting: each named once',
    )
  }
  try {
    loadConfig({ API_KEY: 'short' })
  } catch (error) {
    t.notMatch(describeConfigError(error as Error), /short/, 'the value of a key is never repeated')
  }
})

t.test('the usage lists every setting with its default and meaning, from the schema', async (t) => {
  const text = usageText()
  t.match(text, /^Usage: npm start/)
  for (const name of Object.keys(ConfigSchema.properties)) {
    const line = new RegExp(`^  ${name} = (\\S.*)\\n      (\\S.+)$`, 'm').exec(text)
    t.ok(line, `${name} is listed with a description`)
  }
  t.match(text, /^  API_KEY = required$/m)
  t.match(text, /^  ADMIN_API_KEY = unset$/m)
  t.match(text, /^  PORT = 8080$/m)
  t.match(text, /^  DB_PASS = empty$/m)
  t.match(text, /^  AUTH_MODE = compat {2}\(one of compat, strict\)$/m)
})

t.test('.env is read, and the environment wins over it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, '.env')
  writeFileSync(file, `API_KEY=${KEY}\nPORT=7000\nLOG_LEVEL=\n`)
  t.equal(loadConfig({}, { envFile: file }).PORT, 7000)
  t.equal(loadConfig({}, { envFile: file }).LOG_LEVEL, 'info', 'an empty line value means the default')
  t.equal(loadConfig({ PORT: '7001' }, { envFile: file }).PORT, 7001)
})

t.test('a fresh checkout gets a .env with generated keys, once', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, '.env')
  t.equal(ensureEnvFile(file, { API_KEY: KEY }), null, 'not written when API_KEY is set')
  t.notOk(existsSync(file))
  const keys = ensureEnvFile(file, {})
  t.ok(keys)
  t.match(keys!.API_KEY, /^[A-Za-z0-9_-]{32}$/)
  t.not(keys!.API_KEY, keys!.ADMIN_API_KEY)
  t.match(readFileSync(file, 'utf8'), `API_KEY=${keys!.API_KEY}`)
  t.equal(loadConfig({}, { envFile: file }).ADMIN_API_KEY, keys!.ADMIN_API_KEY, 'the written file is a valid config')
  t.equal(ensureEnvFile(file, {}), null, 'an existing .env is never overwritten')
})

t.test('TRUST_PROXY forms', async (t) => {
  t.equal(parseTrustProxy(''), false)
  t.equal(parseTrustProxy('false'), false)
  t.equal(parseTrustProxy('true'), true)
  t.equal(parseTrustProxy('10.0.0.1, 10.0.0.2'), '10.0.0.1, 10.0.0.2')
  const hops = parseTrustProxy('1') as (address: string, hop: number) => boolean
  t.equal(hops('10.0.0.1', 0), true)
  t.equal(hops('10.0.0.1', 1), false)
})
