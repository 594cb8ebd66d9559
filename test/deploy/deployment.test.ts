import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { parse } from 'yaml'
import { ConfigSchema, loadConfig } from '../../config.js'
import { buildTestApp } from '../helpers/app.js'
import { parsePrometheus } from '../helpers/prometheus.js'
import { serverNodeFlags } from '../../bench/processes.js'

const root = new URL('../../../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')
const settings = Object.keys(ConfigSchema.properties)

/** Compose's `${VAR:-default}` / `${VAR:?message}` as compose would resolve them with nothing set. */
function resolveDefaults(value: unknown): string {
  return String(value).replace(/\$\{(\w+)(?::-([^}]*)|:\?[^}]*)?\}/g, (_m, name: string, fallback?: string) =>
    name === 'API_KEY' || name === 'METRICS_TOKEN' ? `compose-test-${name}-0123` : (fallback ?? ''),
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
  t.same(outpost.depends_on.mysql, { condition: 'service_healthy' }, 'waits for MySQL health')
  t.ok(mysql.healthcheck?.test, 'MySQL has a healthcheck')
  t.ok(compose.services.redis, 'Redis')
  t.match(outpost.healthcheck.test.join(' '), /\/health\/ready/, "Outpost's healthcheck asks /health/ready")
  // The same charset the test suite creates its MariaDB databases with and the first migration sets.
  t.ok(mysql.command.includes('--character-set-server=utf8mb4'))
  t.ok(mysql.command.includes('--collation-server=utf8mb4_unicode_ci'))
  t.match(mysql.image, /^mysql:8/)
})

t.test('docker-compose.postgres.yml: the same stack on PostgreSQL, a configuration Outpost accepts', async (t) => {
  const mysqlStack = parse(read('docker-compose.yml'))
  const compose = parse(read('docker-compose.postgres.yml'))
  const outpost = compose.services.outpost
  const postgres = compose.services.postgres
  const env: Record<string, unknown> = outpost.environment
  for (const name of Object.keys(env)) t.ok(settings.includes(name), `${name} is a setting Outpost reads`)
  t.equal(env.DB_DRIVER, 'postgres')
  t.equal(env.DB_HOST, 'postgres', 'points at the postgres service')
  const config = loadConfig(Object.fromEntries(Object.entries(env).map(([k, v]) => [k, resolveDefaults(v)])))
  t.equal(config.DB_PORT, 5432)
  t.equal(config.DB_NAME, postgres.environment.POSTGRES_DB, 'same database name')
  t.equal(config.DB_USER, postgres.environment.POSTGRES_USER, 'same user (the owner of the database)')
  t.equal(config.DB_PASS, resolveDefaults(postgres.environment.POSTGRES_PASSWORD), 'same password')
  t.match(postgres.environment.POSTGRES_INITDB_ARGS, /--encoding=UTF8/, 'a UTF-8 database')
  t.match(postgres.image, /^postgres:1[4-7]\./, 'a PostgreSQL Outpost supports (14 to 17)')
  t.same(outpost.depends_on.postgres, { condition: 'service_healthy' }, 'waits for PostgreSQL health')
  t.match(postgres.healthcheck.test.join(' '), /pg_isready -h 127\.0\.0\.1 -U outpost -d outpost/)
  t.notOk(compose.services.mysql, 'no MySQL beside it')
  // Everything but the database is the MySQL stack's, so the two files cannot drift apart.
  for (const [name, service] of Object.entries<Record<string, unknown>>(mysqlStack.services)) {
    if (name === 'mysql' || name === 'outpost') continue
    t.same(compose.services[name], service, `${name}: as in docker-compose.yml`)
  }
  const database = ['DB_DRIVER', 'DB_HOST', 'DB_PORT']
  const without = (environment: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(environment).filter(([name]) => !database.includes(name)))
  t.same(without(env), without(mysqlStack.services.outpost.environment), 'outpost: the same settings but the database')
  t.same(
    { ...outpost, environment: undefined, depends_on: undefined },
    { ...mysqlStack.services.outpost, environment: undefined, depends_on: undefined },
    'outpost: built, published, checked and restarted the same way',
  )
  t.same(outpost.depends_on.redis, mysqlStack.services.outpost.depends_on.redis)
  t.same(compose.secrets, mysqlStack.secrets)
  t.same(Object.keys(compose.volumes).sort(), ['grafana-data', 'postgres-data', 'prometheus-data'])
  t.same(postgres.volumes, ['postgres-data:/var/lib/postgresql/data'])
})

t.test('the compose files: every image pinned; SMTP from the environment, Mailpit only for dev', async (t) => {
  const compose = parse(read('docker-compose.yml'))
  for (const file of ['docker-compose.yml', 'docker-compose.postgres.yml']) {
    for (const [name, service] of Object.entries<Record<string, any>>(parse(read(file)).services)) {
      if (service.build) continue
      t.match(service.image, /^[\w./-]+:v?\d+(\.\d+)+[\w.-]*$/, `${file} ${name}: ${service.image} is pinned`)
      t.notMatch(service.image, /:latest$|:(\d+)(-\w+)?$/, `${file} ${name}: not latest, not a bare major`)
    }
  }
  const outpost = compose.services.outpost
  t.match(outpost.environment.SMTP_URL, /^\$\{SMTP_URL(:-)?\}$/, 'SMTP_URL comes from the environment')
  t.equal(resolveDefaults(outpost.environment.SMTP_URL), '', 'unset: e-mail is off, nothing goes to Mailpit')
  t.same(compose.services.mailpit.profiles, ['dev'], 'Mailpit only under --profile dev')
  t.notOk(outpost.depends_on.mailpit, 'Outpost does not need Mailpit')
  t.match(read('docker-compose.yml'), /SMTP_URL=smtp:\/\/mailpit:1025/, 'the file says how to use Mailpit')
})

t.test('the Prometheus service scrapes Outpost with the metrics token', async (t) => {
  const compose = parse(read('docker-compose.yml'))
  const outpost = compose.services.outpost
  const prometheus = compose.services.prometheus
  t.notOk(prometheus.profiles, 'Prometheus runs by default')
  t.match(outpost.environment.METRICS_TOKEN, /^\$\{METRICS_TOKEN:\?/, 'Outpost requires METRICS_TOKEN')
  const mount = prometheus.volumes.find((v: string) => v.endsWith(':/etc/prometheus/prometheus.yml:ro'))
  t.ok(mount, 'its configuration is mounted')
  const configFile = mount.split(':')[0].replace(/^\.\//, '')
  t.ok(existsSync(new URL(configFile, root)), `${configFile} exists`)
  const config = parse(read(configFile))
  const job = config.scrape_configs.find((c: { job_name: string }) => c.job_name === 'outpost')
  t.equal(job.metrics_path, '/metrics')
  t.same(job.static_configs[0].targets, [`outpost:${outpost.environment.PORT}`], 'scrapes the outpost service')
  t.equal(job.authorization.type, 'Bearer')
  // The token file is a compose secret filled from the same METRICS_TOKEN Outpost reads.
  t.same(prometheus.secrets, ['metrics_token'])
  t.same(compose.secrets.metrics_token, { environment: 'METRICS_TOKEN' })
  t.equal(job.authorization.credentials_file, '/run/secrets/metrics_token')
})

t.test('Dockerfile: non-root, a data volume it can write, a health check, LTS Node', async (t) => {
  const dockerfile = read('Dockerfile')
  t.match(dockerfile, /npm ci/)
  t.match(dockerfile, /npm run build/)
  t.match(dockerfile, /FROM .* AS build[\s\S]*FROM /, 'multi-stage')
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '))
  const version = /^ARG NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(dockerfile)
  t.ok(version && Number(version[1]) % 2 === 0 && Number(version[1]) >= 20, `Node ${version?.[1]}: an LTS line`)
  const users = [...runtime.matchAll(/^USER (\S+)$/gm)].map((m) => m[1])
  t.same(users, ['node'], 'runs as the unprivileged node user')
  t.match(runtime, /RUN mkdir -p \/app\/data && chown node:node \/app\/data/, 'the data directory belongs to that user')
  t.match(runtime, /^VOLUME \["\/app\/data"\]$/m, 'the data directory is a volume')
  t.match(runtime, /DB_PATH=\/app\/data\/outpost\.db/, 'the SQLite file is in it')
  // A first start without API_KEY writes .env into the working directory: the volume.
  const workdirs = [...runtime.matchAll(/^WORKDIR (\S+)$/gm)].map((m) => m[1])
  t.equal(workdirs.at(-1), '/app/data', 'the server runs in the data directory, where its .env lands')
  t.ok(runtime.indexOf('USER node') < runtime.lastIndexOf('WORKDIR /app/data'), 'entered as that user')
  t.match(runtime, /HEALTHCHECK [\s\S]*\/health\/live/, 'a HEALTHCHECK on /health/live')
  // The container starts the server with the Node flags of `npm start`, which the bench uses too.
  const cmd = /^CMD (\[.*\])$/m.exec(runtime)
  t.ok(cmd, 'a CMD in exec form')
  const flags = serverNodeFlags(fileURLToPath(root))
  t.ok(flags.includes('--max-semi-space-size=8'), 'npm start bounds the young generation')
  t.ok(flags.includes('--heap-growing-percent=100'), 'and how far the old generation grows past what is live')
  t.same(JSON.parse(cmd![1]!), ['node', ...flags, '/app/dist/server.js'], "the CMD runs npm start's command")
})

t.test('the Grafana dashboard charts metrics that /metrics serves', async (t) => {
  const dashboard = JSON.parse(read('deploy/grafana-dashboard.json'))
  const ctx = await buildTestApp(t, 'sqlite')
  const families = parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
  const served = new Set<string>()
  for (const family of families.values()) {
    served.add(family.name)
    for (const suffix of ['_bucket', '_sum', '_count']) served.add(`${family.name}${suffix}`)
  }
  const panels = dashboard.panels.filter((p: { type: string }) => p.type !== 'row')
  t.ok(panels.length >= 15, `${panels.length} panels`)
  const charted = new Set<string>()
  for (const panel of panels) {
    t.ok(panel.targets?.length, `${panel.title} has queries`)
    for (const target of panel.targets) {
      const names = target.expr.match(/\b(?:http|process|nodejs|outpost)_[a-z0-9_]+/g) ?? []
      t.ok(names.length, `${panel.title}: queries a metric`)
      for (const name of names) {
        t.ok(served.has(name), `${panel.title}: ${name} is served`)
        charted.add(name.replace(/_(bucket|sum|count)$/, ''))
      }
    }
  }
  for (const family of families.keys()) {
    if (family.startsWith('outpost_') || family.startsWith('http_')) t.ok(charted.has(family), `${family} is charted`)
  }
  const ids = panels.map((p: { id: number }) => p.id)
  t.equal(new Set(ids).size, ids.length, 'panel ids are unique')
  t.ok(
    dashboard.templating.list.some(
      (v: { type: string; query: string }) => v.type === 'datasource' && v.query === 'prometheus',
    ),
    'the data source is a variable, so the file imports into any Grafana',
  )
})

t.test('every setting is documented in .env.example and docs/configuration.md', async (t) => {
  const example = read('.env.example')
  const page = read('docs/configuration.md')
  for (const name of settings) {
    t.match(example, new RegExp(`^${name}=`, 'm'), `${name} in .env.example`)
    t.match(page, new RegExp(`^\\| \`${name}\` \\|`, 'm'), `${name} in the settings table of docs/configuration.md`)
  }
  const rows = [...page.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1])
  for (const name of rows) t.ok(settings.includes(name!), `${name} in docs/configuration.md is a setting Outpost reads`)
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
  t.equal(pkg.scripts.start, 'node --max-semi-space-size=8 --heap-growing-percent=100 dist/server.js')
  t.match(pkg.scripts.prestart, /build/)
  t.ok(pkg.scripts.test)
  t.equal(pkg.engines.node, '^20.11 || ^22 || ^24', 'the supported Node lines')
  t.match(read('README.md'), /Node\.js 20, 22 or 24/)
  t.match(pkg.dependencies.kysely, /0\.28\./)
  t.match(pkg.dependencies['better-sqlite3'], /12\./)
  t.match(read('.ci/run'), /npm test/)
})
