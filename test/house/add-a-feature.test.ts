// A newcomer's first trace (ARCHITECTURE.md, "Adding a feature"), walked with a throw-away feature that
// lives only in this file: its table (columns merged into Database, a migration that creates it), its
// routes declared through routesOf, the event it raises and its part of the player export, all in its
// manifest, and one line added to the list of features. Nothing else changes: the app migrates the
// table, the document carries the routes' docs, the webhooks list and deliver the event, the export
// carries the part. Its console page is test/house/add-a-feature-console.test.ts's (a browser build).
import t from 'tap'
import type { Kysely } from 'kysely'
import { Type, type FastifyPluginAsyncTypebox, type Static } from '@fastify/type-provider-typebox'
import { FEATURES, MIGRATIONS } from '../../app.js'
import { inTransaction } from '../../db/transaction.js'
import type { Db } from '../../db/types.js'
import { adminRoutes, defineFeature, exportPart, migrationsOf } from '../../platform/core/features.js'
import type { FeatureManifest } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { buildTestApp, eachDialect } from '../helpers/app.js'
import { startReceiver } from '../helpers/receiver.js'
import { createHook, drain, MANUAL, verified } from '../helpers/webhooks.js'
import { createUser } from '../fixtures/users.js'
import { addOperator, signIn } from '../fixtures/operators.js'

// tables.ts: the feature's table, added to the one Database type.
interface DemoNotesTable {
  id: string
  user_id: string
  body: string
  created_at: number
}
declare module '../../db/types.js' {
  interface Database {
    demo_notes: DemoNotesTable
  }
}

// schemas.ts: the event's payload, added to the hub's map, and the shapes on the wire.
const NoteAddedSchema = Type.Object({ userId: Type.String(), noteId: Type.String() })
declare module '../../platform/core/events.js' {
  interface RaisedEvents {
    'demo.note_added': Static<typeof NoteAddedSchema>
  }
}
const NoteSchema = Type.Object({ id: Type.String(), body: Type.String() })

// migrations/: one file per change, under a name no other migration has.
const migrations = {
  '9000_create_demo_notes': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('demo_notes')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('user_id', 'varchar(36)', (c) => c.notNull())
        .addColumn('body', 'varchar(200)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('demo_notes').execute()
    },
  },
}

// service.ts: the feature's logic, no Fastify types.
const notesOf = (db: Db, userId: string) =>
  db.selectFrom('demo_notes').select(['id', 'body']).where('user_id', '=', userId).orderBy('created_at').execute()

// manifest.ts: everything the central lists read.
const manifest: FeatureManifest = {
  name: 'demo',
  tag: 'Demo',
  adminRights: GAME_RIGHTS,
  tables: ['demo_notes'],
  migrations,
  events: [{ type: 'demo.note_added', title: 'Demo note added', payload: NoteAddedSchema }],
  playerExport: exportPart({
    schema: { demoNotes: Type.Array(NoteSchema) },
    read: async (db, userId) => ({ demoNotes: await notesOf(db, userId) }),
  }),
}

// routes.ts and admin.ts: each route declared once, its docs with it.
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  const body = Type.Object({ userId: Type.String(), body: Type.String({ maxLength: 200 }) })
  const schema = route.app({
    summary: 'Add a note',
    body,
    response: { 201: NoteSchema },
    docs: { description: 'Keeps a note.' },
  })
  app.post('/demo/notes', { schema }, async (request, reply) => {
    const note = {
      id: crypto.randomUUID(),
      user_id: request.body.userId,
      body: request.body.body,
      created_at: app.clock.now(),
    }
    await inTransaction(app.db, async (trx) => {
      await trx.insertInto('demo_notes').values(note).execute()
      await app.events.raise(trx, 'demo.note_added', { userId: note.user_id, noteId: note.id })
    })
    return reply.code(201).send({ id: note.id, body: note.body })
  })
}
const admin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  const response = { 200: Type.Object({ notes: Type.Array(NoteSchema) }) }
  const schema = route.admin({ summary: "A player's notes", params: Type.Object({ userId: Type.String() }), response })
  app.get('/demo/notes/:userId', { schema }, async (request) => ({
    notes: await notesOf(app.db, request.params.userId),
  }))
}

// index.ts: the plugin; then the one line in the list of features.
const demo = defineFeature(
  manifest,
  async (app) => {
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'events', 'openapi'],
)
const features = [...FEATURES, demo]

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, { features, env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...MANUAL } })

  t.test('the app migrates its table with the rest, and its route writes it', async (t) => {
    const db = ctx.app.db as unknown as Kysely<any>
    const names = (await db.selectFrom('kysely_migration').select('name').execute()).map((row) => row.name as string)
    t.same(names.sort(), [...Object.keys(MIGRATIONS), '9000_create_demo_notes'].sort(), 'its migration beside all')
    t.equal((await ctx.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200, 'none pending')
  })

  t.test('the route raises its event: listed by the webhooks, delivered with its title', async (t) => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const events = doc.paths['/api/v1/admin/webhooks'].post.requestBody.content['application/json'].schema
    t.same(events.properties.events.items.enum.slice(-2), ['demo.note_added', 'webhook.test'])
    const standard = await startReceiver(t)
    const slack = await startReceiver(t)
    const hook = await createHook(ctx, { url: standard.url, events: ['demo.note_added'] })
    await createHook(ctx, { url: slack.url, events: ['demo.note_added'], format: 'slack' })
    const user = await createUser(ctx)

    const added = await ctx.call({ method: 'POST', url: '/demo/notes', payload: { userId: user.userId, body: 'hi' } })
    t.equal(added.statusCode, 201, added.body)
    await drain(ctx)
    const [event] = verified(t, standard, hook.secret)
    t.same(event.data, { userId: user.userId, noteId: added.json().id })
    t.match(JSON.parse(slack.received[0].body).text, /^\*Demo note added\* · /)
    const listed = await ctx.admin({ method: 'GET', url: `/demo/notes/${user.userId}` })
    t.same(listed.json(), { notes: [{ id: added.json().id, body: 'hi' }] }, 'the row is in its table')
  })

  t.test('the player export carries its part; the document, its routes as declared', async (t) => {
    const user = await createUser(ctx)
    await ctx.call({ method: 'POST', url: '/demo/notes', payload: { userId: user.userId, body: 'mine' } })
    const exported = (await ctx.admin({ method: 'GET', url: `/users/${user.userId}/export` })).json()
    t.same(
      exported.demoNotes.map((note: { body: string }) => note.body),
      ['mine'],
    )
    t.equal(Object.keys(exported).at(-1), 'demoNotes', 'after every other part')

    const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const post = doc.paths['/api/v1/app/demo/notes'].post
    t.match(post.description, /^Keeps a note\./, 'the docs travel with the route')
    t.same(post.tags, ['Demo'])
    t.same(Object.keys(post.responses).sort(), ['201', '400', '401', '429'], 'the shared answers stamped')
    t.same(doc.paths['/api/v1/admin/demo/notes/{userId}'].get.tags, ['Admin · Demo'])
    t.ok(doc.components.schemas.UserExport.required.includes('demoNotes'))
  })

  t.test("the manifest's rights decide who may call its admin route", async (t) => {
    await addOperator(ctx, 'vera', 'viewer')
    const viewer = await signIn(ctx, 'vera')
    const user = await createUser(ctx)
    t.equal((await viewer.request({ method: 'GET', url: `/demo/notes/${user.userId}` })).statusCode, 200)
  })
})

t.test('a migration named like another one is refused when the app gathers them', async (t) => {
  const manifests = features.map((feature) => feature.manifest)
  t.same(Object.keys(migrationsOf(manifests)), [...Object.keys(MIGRATIONS), '9000_create_demo_notes'], 'name order')
  const clash = (name: string) => ({
    ...manifest,
    name: 'clash',
    migrations: { [name]: migrations['9000_create_demo_notes'] },
  })
  t.throws(
    () => migrationsOf([...manifests, clash('0001_create_users')]),
    /0001_create_users of clash has the name of one of users/,
  )
  t.throws(
    () => migrationsOf([clash('0002_create_sessions')]),
    /0002_create_sessions of clash has the name of one of the platform/,
  )
})
