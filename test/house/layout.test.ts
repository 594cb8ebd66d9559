import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { FEATURES } from '../../app.js'
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { DUMMY_HASH, needsRehash, PASSWORD_PARAMS } from '../../platform/security/passwords.js'
import { buildTestApp } from '../helpers/app.js'
import { addOperator, signIn } from '../fixtures/operators.js'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SHARED_README = 'README.md'

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

t.test(
  'no source file over 400 lines outside the migrations, tests and bench included; platform/core holds at most 12 files',
  async (t) => {
    const topLevel = readdirSync(ROOT).filter((name) => name.endsWith('.ts'))
    const long = ['features', 'platform', 'db', 'scripts', 'console/src', 'bench', 'test']
      .flatMap(sourceFiles)
      .concat(topLevel)
      .filter((file) => !file.startsWith('db/migrations/') && !/^features\/[^/]+\/migrations\//.test(file))
      .map((file) => [file, readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400)
    t.same(long, [], 'split a long file along its seams (ARCHITECTURE.md, "Boundaries and rules")')
    t.ok(
      readdirSync(join(ROOT, 'platform/core')).length <= 12,
      'core is the spine: the rest lives in folders by concern',
    )
  },
)

/**
 * Module-level state in features/ and platform/ (the console's pages aside: a browser tab is one app): a `let` or `var`, or a Map, WeakMap or WeakSet at the top level, or
 * a top-level Set that the file changes. State belongs to an app (a decorator) or a request.
 */
const ALLOWED_STATE: Record<string, string> = {
  // The CSPRNG pool is the process's, like the generator it draws from: one per app would draw more
  // often for nothing (each draw costs the same whatever its size).
  'platform/security/secrets.ts': 'poolOffset',
  // The password hash parameters are the process's, like its hashing slots: the server never changes
  // them; the test suite's own process sets cheaper ones (test/helpers/app.ts).
  'platform/security/passwords.ts': 'inForce',
}

t.test('no module-level mutable state in features/ or platform/', async (t) => {
  const found: string[] = []
  const server = ['features', 'platform']
    .flatMap(sourceFiles)
    .filter((file) => !/^features\/[^/]+\/console\//.test(file))
  for (const file of server) {
    const text = readFileSync(join(ROOT, file), 'utf8')
    for (const [i, line] of text.split('\n').entries()) {
      const variable = /^(?:export )?(?:let|var) (\w+)/.exec(line)
      const collection = /^(?:export )?const (\w+)\b[^=]*= new (Map|WeakMap|WeakSet|Set)\b/.exec(line)
      const name = variable?.[1] ?? collection?.[1]
      if (!name) continue
      if (collection?.[2] === 'Set' && !new RegExp(`\\b${name}\\.(add|delete|clear)\\(`).test(text)) continue
      if (ALLOWED_STATE[file] === name) continue
      found.push(`${file}:${i + 1} ${line.trim()}`)
    }
  }
  t.same(found, [], 'keep state on the app (a decorator) or on the request')
})

t.test('the dummy password hash has the parameters new hashes get', async (t) => {
  t.notOk(
    needsRehash(DUMMY_HASH, PASSWORD_PARAMS),
    'make DUMMY_HASH anew with hashPassword when PASSWORD_PARAMS change',
  )
})

t.test('every folder of features/ is a feature in the one list; every folder of platform/ has a README', async (t) => {
  const folders = (dir: string) =>
    readdirSync(join(ROOT, dir)).filter((name) => statSync(join(ROOT, dir, name)).isDirectory())
  t.same(
    folders('features').sort(),
    FEATURES.map((feature) => feature.manifest.name).sort(),
    'app.ts lists every feature folder once',
  )
  for (const folder of folders('platform'))
    t.ok(readdirSync(join(ROOT, 'platform', folder)).includes(SHARED_README), `platform/${folder} says what it holds`)
  const eslintConfig = readFileSync(join(ROOT, 'eslint.config.js'), 'utf8')
  for (const feature of folders('features'))
    t.notMatch(eslintConfig, `'${feature}'`, `the lint rules do not name ${feature}`)
  t.equal(relative(ROOT, join(ROOT, 'ARCHITECTURE.md')), 'ARCHITECTURE.md')
  t.ok(statSync(join(ROOT, 'ARCHITECTURE.md')).isFile(), 'the lint messages point to a file a clone has')
})

// A feature written the way a new one would be: a manifest, app routes, admin routes, a counter.
const demoManifest: FeatureManifest = {
  name: 'demo',
  tag: 'Demo',
  adminRights: GAME_RIGHTS,
  tables: [],
  counters: {
    pings: { name: 'outpost_demo_pings_total', help: 'Pings, by kind', label: { name: 'kind', values: ['a', 'b'] } },
  },
}
const demoRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const pinged = app.metrics.counter('outpost_demo_pings_total')
  const response = { 200: Type.Object({ pong: Type.Boolean() }) }
  app.get('/demo/ping', { schema: { tags: ['Demo'], summary: 'Ping', response } }, async (request) => {
    pinged('a', request.game.id)
    return { pong: true }
  })
}
const demoAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const response = { 200: Type.Object({ pong: Type.Boolean() }) }
  const schema = { tags: ['Admin', 'Demo'], summary: 'Demo things', response }
  app.get('/demo-things', { schema }, async () => ({ pong: true }))
  app.post('/demo-things', { schema }, async () => ({ pong: true }))
}
const demo = defineFeature(
  demoManifest,
  async (app) => {
    app.openapi.describe({ 'GET /api/v1/app/demo/ping': { description: 'Answers pong.' } })
    await app.register(demoRoutes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(demoManifest, demoAdmin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'metrics', 'openapi'],
)

t.test('a new feature needs its folder and one line in the list: docs, rights and metrics follow', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite', { features: [...FEATURES, demo] })
  t.ok(ctx.app.hasPlugin('demo'))

  const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
  const tags = (doc.tags as Array<{ name: string }>).map((tag) => tag.name)
  t.ok(tags.indexOf('Demo') > tags.indexOf('User Logs') && tags.indexOf('Demo') < tags.indexOf('Admin · Users'))
  t.ok(
    tags.indexOf('Admin · Demo') > tags.indexOf('Admin · Settings') &&
      tags.indexOf('Admin · Demo') < tags.indexOf('Health'),
  )
  t.equal(doc.paths['/api/v1/app/demo/ping'].get.description, 'Answers pong.')

  const rights = ctx.app.adminAuth.routes.filter((route) => route.url === '/api/v1/admin/demo-things')
  t.same(
    rights.map((route) => [route.method, route.access.role, route.access.audit]),
    [
      ['GET', 'viewer', false],
      ['HEAD', 'viewer', false],
      ['POST', 'moderator', true],
    ],
    "the manifest's rights decide, by method",
  )
  await addOperator(ctx, 'vera', 'viewer')
  const viewer = await signIn(ctx, 'vera')
  t.equal((await viewer.request({ method: 'GET', url: '/demo-things' })).statusCode, 200)
  t.equal((await viewer.request({ method: 'POST', url: '/demo-things' })).statusCode, 403, 'a viewer may not write')
  t.equal((await ctx.admin({ method: 'POST', url: '/demo-things' })).statusCode, 200)

  t.equal((await ctx.call({ method: 'GET', url: '/demo/ping' })).statusCode, 200)
  const metrics = (await ctx.app.inject({ method: 'GET', url: '/metrics' })).body
  t.match(metrics, /outpost_demo_pings_total\{kind="a",game="default"\} 1\n/)
  t.match(
    metrics,
    /outpost_demo_pings_total\{kind="b",game="default"\} 0\n/,
    'every declared label value from the start',
  )
})

t.test('an admin route outside any feature and outside the route list stops the start', async (t) => {
  const stray: FastifyPluginAsyncTypebox = async (app) => {
    app.get('/stray', { schema: { response: { 200: Type.Object({}) } } }, async () => ({}))
  }
  const broken = defineFeature(
    { ...demoManifest, name: 'stray' },
    async (app) => {
      await app.register(stray, { prefix: ADMIN_PREFIX })
    },
    [],
  )
  await t.rejects(
    buildTestApp(t, 'sqlite', { features: [...FEATURES, broken] }),
    /\/api\/v1\/admin\/stray has no permission/,
  )
})
