import { MIGRATIONS } from '../../../app.js'
import t from 'tap'
import type { Test } from 'tap'
import { createDb, MIGRATION_QUERY_TIMEOUT_MS } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import type { Db } from '../../../db/types.js'
import { Leases, Outbox } from '../../../platform/jobs/outbox.js'
import { eachDialect, freshDatabase, testConfig, type Dialect } from '../../helpers/app.js'

const NOW = Date.parse('2026-11-22T10:00:00.000Z')
const ROWS = 30
const LEASE = 60_000

/** Two instances: two pools over one fresh, migrated database, so their statements really interleave. */
async function twoInstances(t: Test, dialect: Dialect): Promise<[Db, Db]> {
  const env = await freshDatabase(t, dialect)
  const a = createDb(testConfig(env))
  const b = createDb(testConfig(env))
  t.teardown(async () => {
    await a.destroy()
    await b.destroy()
  })
  // Migrated as the app does: one connection, with the migrations' own query bound.
  const config = testConfig(env)
  const migrations = createDb({ ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: MIGRATION_QUERY_TIMEOUT_MS })
  await migrateToLatest(migrations, MIGRATIONS).finally(() => migrations.destroy())
  return [a, b]
}

/** The webhook outbox's shape: a lease that holds its end. */
const deliveries = () =>
  new Outbox({
    table: 'webhook_deliveries',
    key: 'id',
    token: 'claim_token',
    lease: { until: 'lease_until' },
    leaseMs: LEASE,
    status: 'status',
    attempts: 'attempts',
    dueAt: 'next_attempt_at',
    updatedAt: 'updated_at',
    maxAttempts: 2,
  })

/** The e-mail outbox's shape: a lease that holds its start. */
const emails = () =>
  new Outbox({
    table: 'emails',
    key: 'id',
    token: 'claim_token',
    lease: { since: 'claimed_at' },
    leaseMs: LEASE,
    status: 'status',
    attempts: 'attempts',
    dueAt: 'next_attempt_at',
    updatedAt: 'updated_at',
    maxAttempts: 2,
  })

const ids = Array.from({ length: ROWS }, (_, i) => `row-${String(i).padStart(3, '0')}`)

async function seed(db: Db) {
  await db
    .insertInto('webhook_endpoints')
    .values({
      id: 'endpoint',
      url: 'https://example.com/hook',
      events: '[]',
      format: 'standard',
      enabled: 1,
      description: null,
      secret: 'whsec_test',
      disabled_reason: null,
      created_at: NOW,
      updated_at: NOW,
      last_attempt_at: null,
      last_outcome: null,
      last_response_code: null,
      last_delivered_at: null,
    })
    .execute()
  const row = { endpoint_id: 'endpoint', event_type: 'test', payload: '{}', status: 'pending' as const, attempts: 0 }
  const empty = { claim_token: null, lease_until: null, response_code: null, duration_ms: null, error: null }
  await db
    .insertInto('webhook_deliveries')
    .values(ids.map((id) => ({ id, ...row, ...empty, next_attempt_at: NOW, created_at: NOW, updated_at: NOW })))
    .execute()
  const user = { username: 'player', email: null, is_anonymous: 1 as const, is_verified: 0 as const }
  const unset = { anonymous_token_hash: null, banned_at: null, ban_reason: null, password_hash: null, email_key: null }
  await db
    .insertInto('users')
    .values({ id: 'user', ...user, ...unset, created_at: NOW, updated_at: NOW })
    .execute()
  const mail = { user_id: 'user', template_slug: 't', language: 'en', recipient: 'a@example.com', subject: 's' }
  const body = { html: null, text_body: 'x', is_account: 0 as const, status: 'pending' as const, attempts: 0 }
  const times = { scheduled_at: NOW, next_attempt_at: NOW, created_at: NOW, updated_at: NOW }
  const unclaimed = { claim_token: null, claimed_at: null, processed_at: null, error_reason: null }
  await db
    .insertInto('emails')
    .values(ids.map((id) => ({ id, ...mail, ...body, ...times, ...unclaimed })))
    .execute()
}

/** Both instances claim every row at once, each row from both sides together. */
async function claimAll<T extends 'webhook_deliveries' | 'emails'>(outbox: Outbox<T>, a: Db, b: Db, now: number) {
  const won = await Promise.all(
    ids.flatMap((id) =>
      [a, b].map((db) => outbox.claim(db, { key: id, attempts: 0 }, now).then((token) => ({ id, token }))),
    ),
  )
  return won.filter((w): w is { id: string; token: string } => w.token !== null)
}

eachDialect(t, async (t, dialect) => {
  const [a, b] = await twoInstances(t, dialect)
  await seed(a)

  for (const [name, outbox] of [
    ['webhook_deliveries', deliveries()],
    ['emails', emails()],
  ] as const) {
    t.test(`${name}: two instances claim each due row exactly once`, async (t) => {
      const o = outbox as Outbox<'emails'>
      const table = name as 'emails'
      t.equal(await claimAll(o, a, b, NOW - 1).then((w) => w.length), 0, 'nothing before it is due')
      const won = await claimAll(o, a, b, NOW)
      t.equal(won.length, ROWS, 'one claim per row, however the two raced')
      t.same([...new Set(won.map((w) => w.id))].sort(), ids, 'every row claimed')
      const rows = await a.selectFrom(table).select(['id', 'status', 'attempts', 'claim_token']).orderBy('id').execute()
      t.same(
        rows.map((r) => [r.id, r.status, Number(r.attempts), r.claim_token]),
        won.sort((x, y) => x.id.localeCompare(y.id)).map((w) => [w.id, 'processing', 1, w.token]),
        'each row holds its winner token, one attempt counted',
      )
      t.equal(await claimAll(o, a, b, NOW).then((w) => w.length), 0, 'a claimed row is not claimed again')

      const [first, second] = won
      t.equal(await o.retryAt(a, first!.id, first!.token, NOW, NOW + 5_000), true)
      t.equal(await o.finish(b, second!.id, 'not-the-token', NOW, 'failed'), false, 'a foreign token releases nothing')
      t.equal(await o.finish(b, second!.id, second!.token, NOW, 'delivered'), true)
      t.equal(await o.finish(a, second!.id, second!.token, NOW, 'failed'), false, 'a lease is released once')
      const again = await Promise.all([a, b].map((db) => o.claim(db, { key: first!.id, attempts: 1 }, NOW + 4_999)))
      t.same(again, [null, null], 'not before its backoff has passed')
      const later = await Promise.all([a, b].map((db) => o.claim(db, { key: first!.id, attempts: 1 }, NOW + 5_000)))
      t.equal(later.filter((token) => token !== null).length, 1, 'then by one instance')

      const before = NOW + LEASE - 1
      t.equal(await o.reclaimLapsed(a, before, { retry: {}, fail: {} }), 0, 'a lease that holds is left alone')
      const lapsedAt = NOW + 5_000 + LEASE
      const bulk = await Promise.all([a, b].map((db) => o.reclaimLapsed(db, lapsedAt, { retry: {}, fail: {} })))
      t.equal(bulk[0] + bulk[1], ROWS - 1, 'every lapsed lease taken back once, over both instances')
      const after = await a
        .selectFrom(table)
        .select(['id', 'status', 'claim_token'])
        .where('id', '=', first!.id)
        .execute()
      t.same(
        after.map((r) => [r.status, r.claim_token]),
        [['failed', null]],
        'out of attempts: failed, the lease freed',
      )
      t.same(await o.lapsedRows(a, lapsedAt + LEASE, ['id'], 100), [], 'no lease left to lapse')
    })
  }

  t.test('one lapsed row taken back one by one: one of the two instances does it', async (t) => {
    const o = deliveries()
    const pending = await a
      .selectFrom('webhook_deliveries')
      .select(['id', 'attempts'])
      .where('status', '=', 'pending')
      .orderBy('id')
      .executeTakeFirstOrThrow()
    const { id } = pending
    const attempts = Number(pending.attempts)
    const now = NOW + 10 * LEASE
    const token = await o.claim(a, { key: id, attempts }, now)
    t.ok(token)
    t.same(await o.lapsedRows(b, now + LEASE - 1, ['id'], 100), [], 'not lapsed yet')
    const lapsed = await o.lapsedRows(b, now + LEASE, ['id', 'attempts'], 100)
    t.same(lapsed, [{ id, attempts: attempts + 1, token }], 'lapsed with the token it still holds')
    const taken = await Promise.all(
      [a, b].map((db) => o.reclaim(db, { key: id, attempts: attempts + 1, token: token! }, now + LEASE)),
    )
    t.same(taken.filter(Boolean).length, 1, 'taken back by exactly one')
    t.equal(await o.finish(a, id, token!, now + LEASE, 'delivered'), false, 'the lapsed holder can no longer finish')
  })

  t.test('a run lease (job_runs): one holder per period, taken again once it lapsed', async (t) => {
    const runs = new Leases({
      table: 'job_runs',
      key: 'name',
      token: 'claimed_by',
      lease: { since: 'claimed_at' },
      leaseMs: LEASE,
    })
    const names = ids.slice(0, 10)
    await a
      .insertInto('job_runs')
      .values(names.map((name) => ({ name, claimed_at: 0, claimed_by: null })))
      .execute()
    for (const [period, now] of [NOW, NOW + LEASE - 1, NOW + LEASE].entries()) {
      const taken = await Promise.all(
        names.flatMap((name) =>
          (['a', 'b'] as const).map((by) =>
            runs.take(by === 'a' ? a : b, name, now, runs.lapsed(now), { token: by }).then((held) => held !== null),
          ),
        ),
      )
      const expected = period === 1 ? 0 : names.length
      t.equal(taken.filter(Boolean).length, expected, `period look ${period}: ${expected} runs taken`)
    }
  })
})
