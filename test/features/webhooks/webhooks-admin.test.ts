import { createHash } from 'node:crypto'
import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { startReceiver } from '../../helpers/receiver.js'
import { createHook, drain, hookApp } from '../../helpers/webhooks.js'
import { maskUrl } from '../../../platform/security/secrets.js'

/**
 * A webhook URL is a secret (Discord's and Slack's carry their token in the path): answers, lists and
 * the audit log show its origin and a masked path; the whole URL is only ever written. And both lists
 * page as every admin list does.
 */

const fingerprint = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 8)

t.test('the masked form: origin, leading plain words, **** for the rest', async (t) => {
  t.equal(maskUrl('https://discord.com/api/webhooks/1234567890/AbC-tok_en'), 'https://discord.com/api/webhooks/****')
  t.equal(maskUrl('https://hooks.slack.com/services/T0AB/B0CD/xyzXYZ'), 'https://hooks.slack.com/services/****')
  t.equal(maskUrl('https://discord.com/api/v10/webhooks/1/tok'), 'https://discord.com/api/****', 'a word with digits')
  t.equal(maskUrl('https://ci.example.com/hooks/outpost'), 'https://ci.example.com/hooks/****', 'the last one hidden')
  t.equal(maskUrl('https://ci.example.com/outpost'), 'https://ci.example.com/****')
  t.equal(maskUrl('https://ci.example.com/hooks?token=abc'), 'https://ci.example.com/****', 'a query hidden')
  t.equal(maskUrl('http://127.0.0.1:8080/'), 'http://127.0.0.1:8080/', 'nothing to hide')
  t.equal(maskUrl('https://ci.example.com/#frag'), 'https://ci.example.com/****')
  t.equal(maskUrl('not a url'), null)
})

eachDialect(t, async (t, dialect) => {
  const ctx = await hookApp(t, dialect)
  const { admin } = ctx

  t.test('reads, lists, answers and the audit log never show the token; edits keep the URL', async (t) => {
    const TOKEN = 'Zq7-tok3n_in_the_path-Xw9'
    const receiver = await startReceiver(t, `/api/webhooks/112233445566778899/${TOKEN}`)
    const origin = new URL(receiver.url).origin
    const masked = `${origin}/api/webhooks/****`
    const created = await admin({
      method: 'POST',
      url: '/webhooks',
      payload: { url: receiver.url, events: ['webhook.test'], format: 'discord' },
    })
    t.equal(created.statusCode, 201)
    const hook = created.json()
    t.match(hook, { url: masked, urlFingerprint: fingerprint(receiver.url), format: 'discord' })
    t.match(hook.secret, /^whsec_/, 'the secret is whole in the create answer, the URL is not')

    const answers = [
      created.body,
      (await admin({ method: 'GET', url: `/webhooks/${hook.id}` })).body,
      (await admin({ method: 'GET', url: '/webhooks' })).body,
      (await admin({ method: 'POST', url: `/webhooks/${hook.id}/rotate-secret` })).body,
      (await admin({ method: 'PUT', url: `/webhooks/${hook.id}`, payload: { description: 'ops' } })).body,
    ]
    for (const body of answers) {
      t.notOk(body.includes(TOKEN), 'no answer holds the token')
      t.notOk(body.includes('112233445566778899'), 'nor the id beside it')
      t.ok(body.includes(masked), 'each shows the masked URL')
    }

    // The edit without url kept the stored one: a test still reaches the very path.
    t.equal((await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })).statusCode, 202)
    await drain(ctx)
    t.equal(receiver.received.length, 1, 'the delivery went to the stored URL')
    const deliveries = (await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries` })).body
    t.notOk(deliveries.includes(TOKEN), 'nor the deliveries list')

    // Sending back the masked form is refused, not stored over the real URL.
    assertError(
      t,
      await admin({ method: 'PUT', url: `/webhooks/${hook.id}`, payload: { url: masked, enabled: true } }),
      400,
      'WEBHOOK_URL_MASKED',
    )
    assertError(
      t,
      await admin({ method: 'POST', url: '/webhooks', payload: { url: masked, events: ['webhook.test'] } }),
      400,
      'WEBHOOK_URL_MASKED',
    )
    const moved = await startReceiver(t, '/services/T0AB/B0CD/An0therT0ken')
    const changed = (await admin({ method: 'PUT', url: `/webhooks/${hook.id}`, payload: { url: moved.url } })).json()
    t.match(changed, { url: `${new URL(moved.url).origin}/services/****`, urlFingerprint: fingerprint(moved.url) })
    t.not(changed.urlFingerprint, hook.urlFingerprint, 'the fingerprint tells the two URLs apart')
    await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })
    await drain(ctx)
    t.equal(moved.received.length, 1, 'a new URL is written and used')

    const audit = (await admin({ method: 'GET', url: '/audit?limit=100' })).json().items
    const writes = audit.filter((entry: any) => entry.action.includes('/webhooks'))
    t.ok(writes.length >= 5, 'create, rotate, updates and tests are audited')
    const text = JSON.stringify(audit)
    t.notOk(text.includes(TOKEN), 'the audit log holds no token')
    t.notOk(text.includes('An0therT0ken'), 'nor the second one')
    t.ok(
      writes.some((entry: any) => entry.changes?.url === masked),
      'the create is audited with the masked URL',
    )
    t.ok(
      writes.some((entry: any) => entry.changes?.url === `${new URL(moved.url).origin}/services/****`),
      'the change of URL too',
    )
    const logs = ctx.logs.join('')
    t.notOk(logs.includes(TOKEN) || logs.includes('An0therT0ken'), 'no log line holds a token')
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })

  t.test('GET /webhooks pages by limit and cursor, oldest first', async (t) => {
    const receiver = await startReceiver(t)
    const made: string[] = []
    for (let i = 0; i < 5; i++) {
      made.push((await createHook(ctx, { url: `${receiver.url}/${i}`, events: ['webhook.test'] })).id)
      ctx.clock.advance(1000)
    }
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const res = await admin({ method: 'GET', url: `/webhooks?limit=2${cursor ? `&cursor=${cursor}` : ''}` })
      t.equal(res.statusCode, 200)
      const page: any = res.json()
      t.ok(page.items.length <= 2)
      seen.push(...page.items.map((w: any) => w.id))
      cursor = page.nextCursor
      pages++
    } while (cursor && pages < 10)
    t.same(seen, made, 'each endpoint once, in the order made')
    t.equal(pages, 3)
    assertError(t, await admin({ method: 'GET', url: '/webhooks?limit=101' }), 400, 'VALIDATION_ERROR')
    assertError(t, await admin({ method: 'GET', url: '/webhooks?cursor=bogus' }), 400, 'VALIDATION_ERROR')
    for (const id of made) await admin({ method: 'DELETE', url: `/webhooks/${id}` })
  })

  t.test('GET /webhooks/{id}/deliveries pages by limit and cursor, newest first', async (t) => {
    const receiver = await startReceiver(t)
    const hook = await createHook(ctx, { url: receiver.url, events: ['webhook.test'] })
    const queued: string[] = []
    for (let i = 0; i < 5; i++) {
      queued.push((await admin({ method: 'POST', url: `/webhooks/${hook.id}/test` })).json().deliveryId)
      ctx.clock.advance(1000)
    }
    const seen: string[] = []
    let cursor: string | null = null
    let pages = 0
    do {
      const url: string = `/webhooks/${hook.id}/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`
      const page: any = (await admin({ method: 'GET', url })).json()
      seen.push(...page.items.map((d: any) => d.id))
      cursor = page.nextCursor
      pages++
    } while (cursor && pages < 10)
    t.same(seen, [...queued].reverse(), 'each delivery once, newest first')
    t.equal(pages, 3)
    const pending = (
      await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries?status=pending&limit=1` })
    ).json()
    t.equal(pending.items.length, 1)
    t.type(pending.nextCursor, 'string', 'a filtered list pages too')
    assertError(
      t,
      await admin({ method: 'GET', url: `/webhooks/${hook.id}/deliveries?limit=0` }),
      400,
      'VALIDATION_ERROR',
    )
    await admin({ method: 'DELETE', url: `/webhooks/${hook.id}` })
  })
})
