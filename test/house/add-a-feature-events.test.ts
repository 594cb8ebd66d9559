// A new feature declares the events it raises and its part of the player export in its manifest, and
// nothing else changes: the webhooks list its event (admin API, OpenAPI document, metrics), deliver it,
// and the export carries its part. The `demo` feature below lives only in this test.
import t from 'tap'
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox'
import { FEATURES } from '../../app.js'
import { inTransaction } from '../../db/transaction.js'
import { defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { buildTestApp, eachDialect } from '../helpers/app.js'
import { startReceiver } from '../helpers/receiver.js'
import { createHook, drain, MANUAL, verified } from '../helpers/webhooks.js'
import { createUser } from '../fixtures/users.js'

const DemoPingedSchema = Type.Object({ userId: Type.String(), times: Type.Integer() })

declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'demo.pinged': Static<typeof DemoPingedSchema>
  }
}

const demoManifest: FeatureManifest = {
  name: 'demo',
  tag: 'Demo',
  adminRights: GAME_RIGHTS,
  tables: [],
  events: [{ type: 'demo.pinged', title: 'Demo pinged', payload: DemoPingedSchema }],
  playerExport: exportPart({
    schema: { demo: Type.Object({ userId: Type.String(), note: Type.String() }) },
    // `secret` is not in the part's schema: the answer, serialized by the composed schema, drops it.
    read: async (_db, userId) => ({ demo: { userId, note: 'kept by the demo feature', secret: 's3cret' } }),
  }),
}
const demoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const body = Type.Object({ userId: Type.String() })
  app.post('/demo/ping', { schema: { tags: ['Demo'], summary: 'Ping', body } }, async (request) => {
    await inTransaction(app.db, (trx) =>
      app.events.raise(trx, 'demo.pinged', { userId: request.body.userId, times: 3 }),
    )
    return { pinged: true }
  })
}
const demo = defineFeature(
  demoManifest,
  async (app) => {
    await app.register(demoRoutes, { prefix: APP_PREFIX })
  },
  ['db', 'events'],
)

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, {
    features: [...FEATURES, demo],
    env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...MANUAL },
  })

  t.test('the event is in the webhooks list: the OpenAPI document, the admin API, the metrics', async (t) => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const body = doc.paths['/api/v1/admin/webhooks'].post.requestBody.content['application/json'].schema
    const events = body.properties.events
    t.same(events.items.enum.slice(-2), ['demo.pinged', 'webhook.test'], "after the features' events, before the test")
    t.equal(events.maxItems, events.items.enum.length)
    t.ok(events.items.enum.includes('leaderboard.new_leader'))

    const receiver = await startReceiver(t)
    const refused = await ctx.admin({
      method: 'POST',
      url: '/webhooks',
      payload: { url: receiver.url, events: ['demo.nope'] },
    })
    t.equal(refused.statusCode, 400, 'a type no manifest declares is refused')
    const hook = await createHook(ctx, { url: receiver.url, events: ['demo.pinged'] })
    t.ok(hook.id)

    const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body
    t.match(metrics, /outpost_webhook_deliveries_by_event_total\{event="demo\.pinged"\} 0\n/, 'counted from the start')
  })

  t.test('raising it delivers to a subscribed endpoint, signed, with the title from the manifest', async (t) => {
    const standard = await startReceiver(t)
    const slack = await startReceiver(t)
    const hook = await createHook(ctx, { url: standard.url, events: ['demo.pinged'] })
    await createHook(ctx, { url: slack.url, events: ['demo.pinged'], format: 'slack' })
    const user = await createUser(ctx)

    const res = await ctx.call({ method: 'POST', url: '/demo/ping', payload: { userId: user.userId } })
    t.equal(res.statusCode, 200)
    await drain(ctx)

    const [event] = verified(t, standard, hook.secret)
    t.equal(event.type, 'demo.pinged')
    t.same(event.data, { userId: user.userId, times: 3 })
    t.equal(slack.received.length, 1)
    t.match(JSON.parse(slack.received[0].body).text, /^\*Demo pinged\* · /)
  })

  t.test("the player export carries the feature's part, shaped by its schema", async (t) => {
    const user = await createUser(ctx)
    const res = await ctx.admin({ method: 'GET', url: `/users/${user.userId}/export` })
    t.equal(res.statusCode, 200)
    const document = res.json()
    t.same(document.demo, { userId: user.userId, note: 'kept by the demo feature' })
    t.equal(Object.keys(document).at(-1), 'demo', 'after every other part')
    t.ok('crashReports' in document && 'leaderboardEntries' in document)

    const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const schema = doc.components.schemas.UserExport
    t.same(Object.keys(schema.properties.demo.properties), ['userId', 'note'])
    t.ok(schema.required.includes('demo'))
  })
})
