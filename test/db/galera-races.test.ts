import t from 'tap'
import { randomBytes } from 'node:crypto'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../db/index.js'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { mysqlSettings } from '../../bench/mysql.js'
import { galeraMissing, startGalera, type GaleraCluster } from '../helpers/galera.js'
import { ADMIN_KEY, API_KEY, testConfig } from '../helpers/app.js'
import { startServer, type Server } from '../helpers/server-process.js'
import { tally } from '../fixtures/lockout.js'

/**
 * Outpost on a 3-node MariaDB Galera cluster (test/helpers/galera.ts), two real server processes
 * writing to two different nodes, as two instances behind a load balancer would: the HTTP contract's
 * promises hold as on one database server. What an operator must know of such a cluster:
 * docs/deployment.md, "More than one database server". Migrations run on two nodes at once; the
 * races that count other rows (the last owner, a player's run limit, the sign-in lockout) and those
 * settled on one row (a gift code's uses, a save's version, a run's ticket) run as real concurrent
 * requests through both instances; and what one instance wrote is read through the other right after.
 */

interface Answer {
  status: number
  body: any
}

async function request(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null } as Answer
}

const app = (s: Server, method: string, path: string, body?: unknown, token?: string) =>
  request(
    s.base,
    method,
    `/api/v1/app${path}`,
    { 'x-api-key': API_KEY, ...(token && { authorization: `Bearer ${token}` }) },
    body,
  )
const admin = (s: Server, method: string, path: string, body?: unknown) =>
  request(s.base, method, `/api/v1/admin${path}`, { 'x-admin-key': ADMIN_KEY }, body)

/** `answer` when its status is `status`, else an error naming what came. */
function expect(answer: Answer, status: number, what: string): any {
  if (answer.status !== status) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body
}

async function signUp(s: Server): Promise<{ userId: string; accessToken: string }> {
  return expect(await app(s, 'POST', '/user-management/signup', { type: 'ANONYMOUS' }), 201, 'sign-up')
}

/** A fresh database on the cluster (through node 0), with the settings that point an instance at node `i`. */
async function clusterDatabase(cluster: GaleraCluster) {
  const name = `outpost_g_${randomBytes(5).toString('hex')}`
  await cluster.query(0, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`)
  return { name, on: (i: number) => mysqlSettings(cluster.url(i), name, 8) }
}

t.test(
  'Outpost on a 3-node Galera cluster, two instances on two nodes',
  { skip: galeraMissing(), timeout: 300_000 },
  async (t) => {
    const started = Date.now()
    const cluster = await startGalera(t)
    t.comment(`cluster up in ${Date.now() - started} ms`)
    const database = await clusterDatabase(cluster)

    await t.test('two runs of the migrations on two nodes at once: each migration applied once', async (t) => {
      const other = await clusterDatabase(cluster)
      const open = (i: number) =>
        createDb({ ...testConfig(other.on(i)), DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
      const [a, b] = [open(0), open(1)]
      try {
        const [ranA, ranB] = await Promise.all([migrateToLatest(a, MIGRATIONS), migrateToLatest(b, MIGRATIONS)])
        t.same(
          [...ranA, ...ranB].sort(),
          Object.keys(MIGRATIONS).sort(),
          `each once (${ranA.length} on node 0, ${ranB.length} on node 1)`,
        )
        t.ok(ranA.length === 0 || ranB.length === 0, 'one run did them all: the other waited for the lock')
      } finally {
        await a.destroy()
        await b.destroy()
      }
    })

    // Both instances start at once, each migrating through its own node.
    const [first, second] = await Promise.all([startServer(t, database.on(0), {}), startServer(t, database.on(1), {})])
    const servers = [first, second]
    const through = (i: number) => servers[i % 2]!

    t.test('the migrated database', async (t) => {
      const applied = await cluster.query(2, `SELECT COUNT(*) AS n FROM \`${database.name}\`.kysely_migration`)
      t.equal(Number(applied[0]!.n), Object.keys(MIGRATIONS).length, 'every migration recorded once')
      const lock = await cluster.query(2, `SELECT holder FROM \`${database.name}\`.migration_lock`)
      t.same(
        lock.map((r) => r.holder),
        [null],
        'the migration lock was given back',
      )
      // Galera replicates rows by their primary key: a table without one is refused or slow to apply.
      const keyless = await cluster.query(
        2,
        `SELECT t.table_name AS name FROM information_schema.tables t
        WHERE t.table_schema = ? AND t.table_type = 'BASE TABLE' AND NOT EXISTS (
          SELECT 1 FROM information_schema.table_constraints c WHERE c.table_schema = t.table_schema
            AND c.table_name = t.table_name AND c.constraint_type = 'PRIMARY KEY')`,
        [database.name],
      )
      t.same(
        keyless.map((r) => r.name),
        [],
        'every table has a primary key',
      )
    })

    t.test('two owners demote or remove each other at once, 30 times: an owner always remains', async (t) => {
      const create = (name: string) =>
        admin(first, 'POST', '/operators', { username: name, password: 'a long enough password', role: 'owner' })
      expect(await create('x0'), 201, 'owner x0')
      expect(await create('y0'), 201, 'owner y0')
      let [x, y] = ['x0', 'y0']
      const outcomes: string[] = []
      for (let round = 1; round <= 30; round++) {
        const remove = round % 3 === 0
        const [a, b] = await Promise.all([
          remove
            ? admin(first, 'DELETE', `/operators/${x}`)
            : admin(first, 'PATCH', `/operators/${x}`, { role: 'viewer' }),
          remove
            ? admin(second, 'DELETE', `/operators/${y}`)
            : admin(second, 'PATCH', `/operators/${y}`, { role: 'viewer' }),
        ])
        const statuses = [a.status, b.status].sort().join('/')
        outcomes.push(statuses)
        const owners = expect(await admin(second, 'GET', '/operators'), 200, 'the operators')
          .items.filter((o: { role: string }) => o.role === 'owner')
          .map((o: { username: string }) => o.username)
        if (owners.length !== 1 || statuses !== '200/409') {
          t.fail(`round ${round}: ${statuses}, owners ${JSON.stringify(owners)}`)
          return
        }
        // Two owners again for the next round: the one that went comes back (or a new one).
        const gone = owners[0] === x ? y : x
        if (remove) expect(await create(`${gone}r`), 201, 'a new owner')
        else expect(await admin(second, 'PATCH', `/operators/${gone}`, { role: 'owner' }), 200, 'promoted back')
        ;[x, y] = [owners[0], remove ? `${gone}r` : gone]
      }
      t.pass(`30 rounds, each one change refused (LAST_OWNER) and one owner left`)
    })

    t.test('a gift code of 5 uses redeemed by 30 players through both instances: exactly 5', async (t) => {
      for (const code of ['GALERA-A', 'GALERA-B']) {
        expect(
          await admin(first, 'POST', '/gift-codes', { code, giftData: '{"coins":1}', maxRedemptions: 5 }),
          201,
          'the code',
        )
        const users = await Promise.all(Array.from({ length: 30 }, (_, i) => signUp(through(i))))
        const answers = await Promise.all(
          users.map((u, i) =>
            app(through(i + 1), 'POST', '/gift-codes/redeem', { code, userId: u.userId }, u.accessToken),
          ),
        )
        const won = answers.filter((a) => a.status === 200 && a.body.success === true).length
        t.equal(won, 5, `${code}: 5 redeemed`)
        t.ok(
          answers.every((a) => a.body.success === true || a.body.reason === 'EXHAUSTED'),
          'the others: EXHAUSTED',
        )
        t.equal(expect(await admin(second, 'GET', `/gift-codes/${code}`), 200, 'the code').redemptionCount, 5)
      }
    })

    t.test('concurrent saves expecting one version through both instances: one wins', async (t) => {
      const user = await signUp(first)
      for (const expectedVersion of [0, 1, 2]) {
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            app(through(i), 'POST', '/cloud-save/save', {
              userId: user.userId,
              data: `v${expectedVersion}-${i}`,
              expectedVersion,
            }),
          ),
        )
        const statuses = answers.map((a) => a.status).sort()
        t.same(statuses, [200, ...Array(9).fill(409)], `expecting ${expectedVersion}: one wins`)
        const winner = answers.findIndex((a) => a.status === 200)
        const loaded = expect(
          await app(through(winner + 1), 'POST', '/cloud-save/load', { userId: user.userId }),
          200,
          'load',
        )
        t.equal(loaded.data, `v${expectedVersion}-${winner}`, 'the winner is what is stored')
      }
    })

    t.test("validated runs: one submit per ticket; a player's run limit holds across instances", async (t) => {
      expect(await admin(first, 'PUT', '/leaderboards/galera', { updateStrategy: 'increment' }), 200, 'board')
      expect(await admin(first, 'PUT', '/validated-actions/values/gold', {}), 200, 'value')
      expect(await admin(first, 'PUT', '/validated-actions/rules/galera', { maxRunsPerHour: 4 }), 200, 'rules')
      for (let round = 0; round < 3; round++) {
        const user = await signUp(through(round))
        const starts = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            app(
              through(i),
              'POST',
              '/validated-actions/runs',
              { userId: user.userId, leaderboardKey: 'galera' },
              user.accessToken,
            ),
          ),
        )
        const statuses = starts.map((a) => a.status)
        t.equal(statuses.filter((s) => s === 200).length, 4, `round ${round}: 4 of 10 starts (${tally(statuses)})`)
        const run = starts.find((a) => a.status === 200)!.body
        // The server refuses a submit sooner than its minimum duration: none is set on this board.
        const submits = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            app(
              through(i + round),
              'POST',
              '/validated-actions/submit',
              {
                userId: user.userId,
                ticket: run.ticket,
                inputLogHash: '054a3b937f3f8b4d1d82fe353243cb91288f7975e2190a338e59271f17701375',
                score: 70,
                earned: [{ key: 'gold', amount: 10 }],
              },
              user.accessToken,
            ),
          ),
        )
        const codes = submits.map((a) => `${a.status} ${a.body.code ?? 'ACCEPTED'}`)
        t.equal(codes.filter((c) => c === '200 ACCEPTED').length, 1, `round ${round}: one submit accepted`)
        t.equal(codes.filter((c) => c === '422 TICKET_CONSUMED').length, 9, 'the others: TICKET_CONSUMED')
        const rank = expect(
          await app(through(round + 1), 'GET', `/leaderboards/galera/rank?userId=${user.userId}`),
          200,
          'rank',
        )
        t.equal(rank.score, 70, 'the score written once')
      }
    })

    t.test('20 wrong sign-ins at once through both instances: exactly 10 checked, then locked', async (t) => {
      const email = `galera.${Date.now()}@example.org`
      expect(
        await app(first, 'POST', '/user-management/signup', {
          type: 'EMAIL',
          email,
          password: 'correct horse battery',
        }),
        201,
        'e-mail sign-up',
      )
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app(through(i), 'POST', '/user-management/signin', { type: 'EMAIL', email, password: `guess-${i}` }),
        ),
      )
      const statuses = answers.map((a) => a.status)
      t.equal(statuses.filter((s) => s === 401).length, 10, `exactly 10 checked: ${tally(statuses)}`)
      t.equal(statuses.filter((s) => s === 429).length, 10, 'the rest refused before the check')
    })

    t.test('what one instance wrote, the other reads right after', async (t) => {
      const user = await signUp(first)
      let staleLoads = 0
      for (let i = 1; i <= 200; i++) {
        expect(await app(first, 'POST', '/cloud-save/save', { userId: user.userId, data: `save-${i}` }), 200, 'save')
        const loaded = expect(await app(second, 'POST', '/cloud-save/load', { userId: user.userId }), 200, 'load')
        if (loaded.data !== `save-${i}`) staleLoads++
      }
      t.equal(staleLoads, 0, `a save through A, then its load through B: ${200 - staleLoads} of 200 see it`)
      expect(await admin(first, 'PUT', '/leaderboards/galera-sum', { updateStrategy: 'increment' }), 200, 'board')
      let staleRanks = 0
      for (let i = 1; i <= 100; i++) {
        expect(
          await app(
            first,
            'POST',
            '/leaderboards/galera-sum/submit',
            { userId: user.userId, score: 1 },
            user.accessToken,
          ),
          200,
          'submit',
        )
        const rank = expect(
          await app(second, 'GET', `/leaderboards/galera-sum/rank?userId=${user.userId}`),
          200,
          'rank',
        )
        if (rank.score !== i) staleRanks++
      }
      t.equal(staleRanks, 0, `a submit through A, then its rank through B: ${100 - staleRanks} of 100 see it`)
    })

    t.teardown(() => t.comment(`the whole run: ${((Date.now() - started) / 1000).toFixed(1)} s`))
  },
)
