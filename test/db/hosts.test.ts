import t from 'tap'
import { describeConfigError, loadConfig } from '../../config.js'
import { dbHosts, hostLabel, parseDbHosts } from '../../db/hosts.js'
import { describeDatabase } from '../../db/index.js'
import { buildTestApp, eachDialect } from '../helpers/app.js'
import { parsePrometheus, valueOf } from '../helpers/prometheus.js'

const KEY = 'k'.repeat(20)

/** The one line the start prints for a configuration loadConfig refuses; the test fails when it is accepted. */
function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ API_KEY: KEY, ...env })
  } catch (error) {
    return describeConfigError(error as Error)
  }
  throw new Error(`accepted ${JSON.stringify(env)}`)
}

t.test('DB_HOST: one host or a comma list of host[:port], a host without a port on DB_PORT', async (t) => {
  t.same(parseDbHosts('db.internal', 3306), [{ host: 'db.internal', port: 3306 }], 'one host, as before')
  t.same(
    parseDbHosts('db1,db2:3307, 10.0.0.7 ,[fe80::1]:3308,[::1]', 3306),
    [
      { host: 'db1', port: 3306 },
      { host: 'db2', port: 3307 },
      { host: '10.0.0.7', port: 3306 },
      { host: 'fe80::1', port: 3308 },
      { host: '::1', port: 3306 },
    ],
    'ports where given, DB_PORT elsewhere; blanks around an entry ignored; IPv6 in brackets',
  )
  t.same(parseDbHosts('::1', 3306), [{ host: '::1', port: 3306 }], 'a bare IPv6 address, as before: no port in it')
  t.same(parseDbHosts('my_db-1.local', 5432), [{ host: 'my_db-1.local', port: 5432 }], 'a service name')
  t.equal(hostLabel({ host: 'db1', port: 3306 }), 'db1:3306')
  t.equal(hostLabel({ host: '::1', port: 3306 }), '[::1]:3306', 'IPv6 in brackets, as it is written')

  const config = loadConfig({ API_KEY: KEY, DB_DRIVER: 'mysql', DB_HOST: 'db1, db2:3307', DB_PORT: '3310' })
  t.equal(config.DB_HOST, 'db1, db2:3307', 'the setting is kept as written')
  t.same(dbHosts(config), [
    { host: 'db1', port: 3310 },
    { host: 'db2', port: 3307 },
  ])
  t.equal(describeDatabase(config), 'mysql outpost@db1:3310,db2:3307/outpost', 'the start line names every host')
  const single = loadConfig({ API_KEY: KEY, DB_DRIVER: 'mysql', DB_HOST: 'db:3307' })
  t.same(dbHosts(single), [{ host: 'db', port: 3307 }], 'one host with its port')
  t.equal(describeDatabase(single), 'mysql outpost@db:3307/outpost')
  t.same(dbHosts(loadConfig({ API_KEY: KEY, DB_DRIVER: 'postgres' })), [{ host: '127.0.0.1', port: 5432 }])
})

t.test('a DB_HOST of a bad form stops the start with one line naming the entry and the form', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['db1,,db2', /DB_HOST \(set in the environment.*\) has an empty entry in "db1,,db2": list .*host\[:port\]/],
    ['db1,', /has an empty entry in "db1,"/],
    [',db1', /has an empty entry/],
    ['db1:', /the entry "db1:" has no port after its colon: write db1 \(on DB_PORT, 3306\) or db1:3306/],
    ['db1:abc', /the port of "db1:abc" must be a number from 1 to 65535/],
    ['db1:0', /the port of "db1:0" must be a number from 1 to 65535/],
    ['db1:65536', /the port of "db1:65536" must be a number from 1 to 65535/],
    [':3306', /the entry ":3306" names no host before its port/],
    ['[::1', /the entry "\[::1" is not an IPv6 address in brackets: write \[::1\] or \[::1\]:3306/],
    ['[::1]3306', /is not an IPv6 address in brackets/],
    ['mysql://db', /the entry "mysql:\/\/db" is not a host name or address/],
    ['db one,db2', /the entry "db one" is not a host name or address/],
    ['db1,db1:3306', /lists db1:3306 twice: name each server once/],
  ]
  for (const [value, pattern] of cases) {
    const line = refusal({ DB_DRIVER: 'mysql', DB_HOST: value })
    t.match(line, /^Invalid configuration: DB_HOST/, line)
    t.match(line, pattern)
    t.notMatch(line, /\n/, 'one line')
  }
})

t.test('a list of hosts is refused where it has no meaning, with the fix', async (t) => {
  const sqlite = refusal({ DB_HOST: 'db1,db2' })
  t.match(
    sqlite,
    /^Invalid configuration: DB_HOST \(set in the environment.*\) lists 2 hosts \(db1, db2\), but DB_DRIVER=sqlite keeps its data in the file of DB_PATH and connects to no server: /,
    sqlite,
  )
  t.match(sqlite, /remove DB_HOST, or set DB_DRIVER=mysql/, 'the fix')
  // SQLite never reads DB_HOST: a single value stays as harmless as it was, whatever its form.
  t.equal(loadConfig({ API_KEY: KEY, DB_HOST: 'db:3306' }).DB_DRIVER, 'sqlite')

  const postgres = refusal({ DB_DRIVER: 'postgres', DB_HOST: 'pg1,pg2:5433' })
  t.match(
    postgres,
    /^Invalid configuration: DB_HOST \(set in the environment.*\) lists 2 hosts \(pg1:5432, pg2:5433\), but PostgreSQL takes one: /,
    postgres,
  )
  t.match(postgres, /set DB_HOST to the one address that always leads to the primary/, 'the fix')
  t.match(postgres, /a list of hosts is for MySQL and MariaDB/)
  t.equal(
    loadConfig({ API_KEY: KEY, DB_DRIVER: 'postgres', DB_HOST: 'pg1:5433' }).DB_HOST,
    'pg1:5433',
    'PostgreSQL takes one host, with its port',
  )
})

eachDialect(t, async (t, dialect) => {
  t.test('/metrics: the host written to, and the failovers (none with one host)', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const families = parsePrometheus((await ctx.app.inject({ method: 'GET', url: '/metrics' })).body)
    t.equal(families.get('outpost_db_host')?.type, 'gauge')
    t.equal(families.get('outpost_db_failovers_total')?.type, 'counter')
    t.equal(valueOf(families, 'outpost_db_failovers_total', {}), 0, 'at 0 from the start')
    const hosts = families.get('outpost_db_host')?.samples.map((s) => `${s.labels.host} ${s.value}`)
    // A list, and moving along it: test/resilience/db-failover.test.ts.
    if (dialect === 'sqlite') t.same(hosts, [], 'SQLite: no host')
    else t.same(hosts, [`${ctx.env.DB_HOST}:${ctx.env.DB_PORT} 1`], 'the one host, written to')
  })
})
