import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { ConfigSchema, loadConfig } from '../config.js'

const root = new URL('../../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')
const settings = Object.keys(ConfigSchema.properties)

/** Compose's `${VAR:-default}` / `${VAR:?message}` as compose would resolve them with nothing set. */
function resolveDefaults(value: unknown): string {
  return String(value).replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, fallback?: string) =>
    name === 'API_KEY' ? 'compose-test-api-key-0123' : (fallback ?? ''),
  )
}

t.test('docker-compose.yml encodes a configuration Outpost accepts', async (t) => {
  const compose = parse(read('docker-compose.yml'))
  const outpost = compose.services.outpost
  const mysql = compose.services.mysql
  t.ok(outpost.build, 'Outpost is built from the Dockerfile')
  const env: Record<string, unknown> = outpost.environment
  for (const name of Object.keys(env)) t.ok(settings.includes(name), `${name} is a setting Outpost reads`)
  t.equal(env.DB_DRIVER, 'mysql')
  t.equal(env.DB_HOST, 'mysql', 'points at the mysql service')
  t.ok(String(env.API_KEY).includes(':?'), 'refuses to start without an API key')
  const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, resolveDefaults(v)]))
  const config = loadConfig(resolved)
  t.equal(config.DB_NAME, mysql.environment.MYSQL_DATABASE, 'same database name')
  t.equal(config.DB_USER, mysql.environment.MYSQL_USER, 'same user')
  t.equal(config.DB_PASS, resolveDefaults(mysql.environment.MYSQL_PASSWORD), 'same password')
  t.equal(config.REDIS_URL, 'redis://redis:6379')
  t.match(config.SMTP_URL, /^smtp:\/\/mailpit:/)
  t.same(outpost.depends_on.mysql, { condition: 'service_healthy' }, 'waits for MySQL health')
  t.ok(mysql.healthcheck?.test, 'MySQL has a healthcheck')
  t.ok(compose.services.redis, 'Redis')
  t.ok(compose.services.mailpit, 'Mailpit')
  // The same charset the test suite creates its MariaDB databases with and the first migration sets.
  t.ok(mysql.command.includes('--character-set-server=utf8mb4'))
  t.ok(mysql.command.includes('--collation-server=utf8mb4_unicode_ci'))
  t.match(mysql.image, /^mysql:8/)
})

t.test('Dockerfile builds and runs the compiled server', async (t) => {
  const dockerfile = read('Dockerfile')
  t.match(dockerfile, /npm ci/)
  t.match(dockerfile, /npm run build/)
  t.match(dockerfile, /CMD \["node", "dist\/server\.js"\]/)
  t.match(dockerfile, /FROM .* AS build[\s\S]*FROM /, 'multi-stage')
})

t.test('every setting is documented in .env.example and the README', async (t) => {
  const example = read('.env.example')
  const readme = read('README.md')
  for (const name of settings) {
    t.match(example, new RegExp(`^${name}=`, 'm'), `${name} in .env.example`)
    t.match(readme, new RegExp(`\\| \`${name}\` \\|`), `${name} in the README's table`)
  }
  t.throws(
    () =>
      loadConfig(
        Object.fromEntries(
          example
            .split('\n')
            .filter((l) => /^\w+=/.test(l))
            .map((l) => l.split(/=(.*)/s).slice(0, 2)),
        ),
      ),
    /API_KEY/,
    'the example key is refused',
  )
})

t.test('npm scripts: the quick start and the test command', async (t) => {
  const pkg = JSON.parse(read('package.json'))
  t.equal(pkg.scripts.start, 'node dist/server.js')
  t.match(pkg.scripts.prestart, /build/)
  t.ok(pkg.scripts.test)
  t.equal(pkg.engines.node, '>=20')
  t.match(pkg.dependencies.kysely, /0\.28\./)
  t.match(pkg.dependencies['better-sqlite3'], /12\./)
  t.match(read('.ci/run'), /npm test/)
})
