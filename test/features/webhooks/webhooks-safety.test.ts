import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { startReceiver } from '../../helpers/receiver.js'
import { AddressPolicy } from '../../../features/webhooks/address.js'
import { newSecret, sign, signatureHeaders } from '../../../features/webhooks/signing.js'
import { backoffMs } from '../../../features/webhooks/worker.js'

t.test("signatures: the specification's published test vector", async (t) => {
  // libraries/javascript/src/webhook.test.ts of the Standard Webhooks repository ("sign function works").
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'
  const expected = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
  t.equal(sign(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'), expected)
  t.equal(
    new Webhook(secret).sign('msg_p5jXN8AQM9LWM0D4loKWxJek', new Date(1614265330_000), '{"test": 2432232314}'),
    expected,
  )
})

t.test('signatures: a fresh secret verifies with the independent library, a changed body does not', async (t) => {
  const secret = newSecret()
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/)
  const body = '{"type":"webhook.test"}'
  const headers = signatureHeaders(secret, 'f3c2a8d4-0b1e-4c3d-9e8f-7a6b5c4d3e2f', Math.floor(Date.now() / 1000), body)
  t.doesNotThrow(() => new Webhook(secret).verify(body, headers))
  t.throws(() => new Webhook(secret).verify('{"type":"webhook.tesT"}', headers))
  t.throws(() => new Webhook(newSecret()).verify(body, headers))
})

t.test('backoff: base · 3^(n−1) capped, ±20 % jitter, eight attempts within about a day', async (t) => {
  const base = 60_000
  const max = 12 * 3600_000
  t.equal(backoffMs(1, base, max, 0.5), 60_000)
  t.equal(backoffMs(2, base, max, 0.5), 180_000)
  t.equal(backoffMs(1, base, max, 0), 48_000)
  t.equal(backoffMs(1, base, max, 1), 72_000)
  t.equal(backoffMs(7, base, max, 0.5), 12 * 3600_000)
  let total = 0
  for (let attempt = 1; attempt < 8; attempt++) total += backoffMs(attempt, base, max, 0.5)
  t.ok(total > 12 * 3600_000 && total < 30 * 3600_000, `the seven waits add up to ${(total / 3600_000).toFixed(1)} h`)
})

t.test('addresses: non-public ranges refused, public ones allowed', async (t) => {
  const policy = new AddressPolicy(false)
  for (const address of [
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    '2001:db8::1',
  ]) {
    t.notOk(policy.isPublic(address), `${address} is not public`)
  }
  for (const address of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    t.ok(policy.isPublic(address), `${address} is public`)
  }
  await t.rejects(policy.resolve(new URL('http://localhost/')), { code: 'WEBHOOK_URL_REFUSED' })
  await t.resolves(new AddressPolicy(true).resolve(new URL('http://localhost/')))
})

t.test('addresses: IPv6 forms that carry an IPv4 address are judged by it; local-use NAT64 is refused', async (t) => {
  const policy = new AddressPolicy(false)
  for (const address of [
    // IPv4-translated, ::ffff:0:0:0/96 (SIIT): loopback, private, cloud metadata inside.
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '0:0:0:0:ffff:0:a00:1',
    '::ffff:0:a9fe:a9fe',
    // IPv4-mapped in its hexadecimal and fully written forms.
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:c0a8:101',
    // The well-known NAT64 prefix 64:ff9b::/96 with a private address inside.
    '64:ff9b::10.0.0.1',
    '64:ff9b::7f00:1',
    // Local-use NAT64, 64:ff9b:1::/48: a translator into someone's own IPv4 network, whatever it carries.
    '64:ff9b:1::1',
    '64:ff9b:1::808:808',
    '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
  ]) {
    t.notOk(policy.isPublic(address), `${address} is not public`)
    await t.rejects(policy.resolve(new URL(`http://[${address}]/hook`)), { code: 'WEBHOOK_URL_REFUSED' })
  }
  for (const address of [
    '::ffff:0:8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::101:101',
    '64:ff9b:2::1',
  ]) {
    t.ok(
      policy.isPublic(address),
      `${address} is public (it carries a public IPv4 address, or is outside these prefixes)`,
    )
  }
})

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, { env: { WEBHOOK_POLL_INTERVAL_MS: '3600000' } })
  const { admin, app } = ctx

  t.test('without WEBHOOK_ALLOW_PRIVATE: private URLs refused at creation and on update', async (t) => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]:9/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://localhost:9/hook',
      'http://0x7f000001/hook',
      'https://user:pass@127.0.0.1/hook',
    ]) {
      const res = await admin({ method: 'POST', url: '/webhooks', payload: { url, events: ['webhook.test'] } })
      assertError(t, res, 400, 'WEBHOOK_URL_REFUSED')
    }
    t.equal((await admin({ method: 'GET', url: '/webhooks' })).json().items.length, 0)
  })

  t.test('without WEBHOOK_ALLOW_PRIVATE: checked again at send time (nothing reaches the receiver)', async (t) => {
    const receiver = await startReceiver(t)
    // As if the name had resolved to a public address when the endpoint was made, and no longer does.
    const now = Date.now()
    await app.db
      .insertInto('webhook_endpoints')
      .values({
        id: '0b7c2d4e-6f81-4a3b-9c5d-7e9f1a2b3c4d',
        url: receiver.url.replace('127.0.0.1', 'localhost'),
        events: '["webhook.test"]',
        format: 'standard',
        enabled: 1,
        description: null,
        secret: newSecret(),
        disabled_reason: null,
        created_at: now,
        updated_at: now,
      })
      .execute()
    const queued = await admin({ method: 'POST', url: '/webhooks/0b7c2d4e-6f81-4a3b-9c5d-7e9f1a2b3c4d/test' })
    t.equal(queued.statusCode, 202)
    await app.webhookWorker.runOnce()
    t.equal(receiver.received.length, 0)
    const delivery = (
      await admin({ method: 'GET', url: '/webhooks/0b7c2d4e-6f81-4a3b-9c5d-7e9f1a2b3c4d/deliveries' })
    ).json().items[0]
    t.match(delivery, { status: 'pending', responseCode: null, error: /refused.*non-public/ })
  })

  t.test('owner only: the manifest gives the admin routes to owners; no credential is a 401', async (t) => {
    const manifest = app.features.find((feature) => feature.name === 'webhooks')
    t.same(manifest?.adminRights, { read: 'owner', write: 'owner' })
    const res = await app.inject({ method: 'GET', url: '/api/v1/admin/webhooks' })
    t.equal(res.statusCode, 401)
  })
})
