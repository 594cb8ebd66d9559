// A feature owns its tables: a new one brings its table's columns (by declaration merging), a migration
// that creates it, and routes that write it, all in its own folder; the app migrates it with the rest.
import t from 'tap'
import type { Kysely } from 'kysely'
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { FEATURES, MIGRATIONS } from '../../app.js'
import { defineFeature, migrationsOf, type FeatureManifest } from '../../platform/core/features.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { buildTestApp, eachDialect } from '../helpers/app.js'

/** The demo feature's one table, as its `tables.ts` would declare it. */
interface DemoNotesTable {
  id: string
  body: string
  created_at: number
}

declare module '../../db/types.js' {
  interface Database {
    demo_notes: DemoNotesTable
  }
}

/** Its one migration, as its `migrations/index.ts` would list it (a name no other migration has). */
const demoMigrations = {
  '9000_create_demo_notes': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('demo_notes')
        .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
        .addColumn('body', 'varchar(200)', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute()
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('demo_notes').execute()
    },
  },
}

const demoManifest: FeatureManifest = {
  name: 'demo',
  tag: 'Demo',
  adminRights: GAME_RIGHTS,
  tables: ['demo_notes'],
  migrations: demoMigrations,
}

const Note = Type.Object({ id: Type.String(), body: Type.String() })
const demoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const tags = ['Demo']
  app.post(
    '/demo/notes',
    { schema: { tags, summary: 'Add a note', body: Type.Object({ body: Type.String() }), response: { 201: Note } } },
    async (request, reply) => {
      const note = { id: crypto.randomUUID(), body: request.body.body, created_at: app.clock.now() }
      await app.db.insertInto('demo_notes').values(note).execute()
      return reply.code(201).send({ id: note.id, body: note.body })
    },
  )
  app.get(
    '/demo/notes',
    { schema: { tags, summary: 'The notes', response: { 200: Type.Object({ notes: Type.Array(Note) }) } } },
    async () => ({
      notes: await app.db.selectFrom('demo_notes').select(['id', 'body']).orderBy('created_at').execute(),
    }),
  )
}

const demo = defineFeature(
  demoManifest,
  async (app) => {
    app.openapi.describe({
      'POST /api/v1/app/demo/notes': { description: 'Keeps a note.' },
      'GET /api/v1/app/demo/notes': { description: 'Answers the notes kept.' },
    })
    await app.register(demoRoutes, { prefix: APP_PREFIX })
  },
  ['db', 'clock', 'openapi'],
)

eachDialect(t, async (t, dialect) => {
  t.test("a new feature's migration creates its table, and its routes write it", async (t) => {
    const ctx = await buildTestApp(t, dialect, { features: [...FEATURES, demo] })
    const db = ctx.app.db as unknown as Kysely<any>
    const recorded = await db.selectFrom('kysely_migration').select('name').execute()
    const names = recorded.map((row) => row.name as string)
    t.ok(names.includes('9000_create_demo_notes'), "the database recorded the feature's migration")
    t.same(names.sort(), [...Object.keys(MIGRATIONS), '9000_create_demo_notes'].sort(), "with every other one's")

    const added = await ctx.call({ method: 'POST', url: '/demo/notes', payload: { body: 'first' } })
    t.equal(added.statusCode, 201, added.body)
    const listed = await ctx.call({ method: 'GET', url: '/demo/notes' })
    t.same(listed.json(), { notes: [{ id: added.json().id, body: 'first' }] }, 'the row is in its table')
    t.equal((await ctx.app.inject({ method: 'GET', url: '/health/ready' })).statusCode, 200, 'none pending')
  })
})

t.test('a migration named like another one is refused when the app gathers them', async (t) => {
  const manifests = [...FEATURES.map((feature) => feature.manifest), demoManifest]
  t.same(Object.keys(migrationsOf(manifests)), [...Object.keys(MIGRATIONS), '9000_create_demo_notes'], 'name order')
  const clash = {
    ...demoManifest,
    name: 'clash',
    migrations: { '0001_create_users': demoMigrations['9000_create_demo_notes'] },
  }
  t.throws(() => migrationsOf([...manifests, clash]), /0001_create_users of clash has the name of one of users/)
  const platform = {
    ...demoManifest,
    name: 'clash',
    migrations: { '0002_create_sessions': demoMigrations['9000_create_demo_notes'] },
  }
  t.throws(() => migrationsOf([platform]), /0002_create_sessions of clash has the name of one of the platform/)
})
