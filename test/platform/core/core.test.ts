import t from 'tap'
import { FEATURES } from '../../../app.js'
import { GAME_RIGHTS } from '../../../platform/security/roles.js'
import { Kysely, SqliteDialect } from 'kysely'
import SQLite from 'better-sqlite3'
import { buildApp } from '../../../app.js'
import { ADMIN_KEY, API_KEY, assertError, buildTestApp, eachDialect, testConfig, TestClock } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { HEALTH_TAG, operationTagOrder } from '../../../platform/openapi/index.js'

// The game features (those with the game's rights; operators and settings are the operators' own).
const FEATURE_TAGS = FEATURES.map((f) => f.manifest)
  .filter((m) => m.adminRights === GAME_RIGHTS)
  .map((m) => m.tag)
const OPERATION_TAGS = operationTagOrder(FEATURES.map((f) => f.manifest.tag))

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { app, call } = ctx

  t.test('health: four routes, no key, real database check', async (t) => {
    const health = await app.inject({ method: 'GET', url: '/health' })
    t.equal(health.statusCode, 200)
    t.match(health.json(), { status: 'ok', database: 'ok', version: /^\d+\.\d+\.\d+/, uptimeSeconds: Number })
    t.match(health.json().timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    t.match((await app.inject({ method: 'GET', url: '/api/v1/app/health' })).json(), { status: 'ok', database: 'ok' })
    const actuator = await app.inject({
      method: 'GET',
      url: '/actuator/health',
      headers: { 'x-api-key': 'whatever the Unreal SDK sends' },
    })
    t.equal(actuator.statusCode, 200)
    t.equal(actuator.body, '{"status":"UP"}', 'byte-exact compact JSON')
    const plain = await app.inject({ method: 'GET', url: '/api/v1/public/health' })
    t.equal(plain.statusCode, 200)
    t.equal(plain.body, 'OK')
    t.match(plain.headers['content-type'], /^text\/plain/)
  })

  t.test('API key: 401 before routing, 404 after; constant shape', async (t) => {
    assertError(t, await app.inject({ method: 'GET', url: '/api/v1/app/nowhere' }), 401, 'UNAUTHORIZED')
    assertError(
      t,
      await app.inject({ method: 'GET', url: '/api/v1/app/nowhere', headers: { 'x-api-key': 'wrong-key-0123456789' } }),
      401,
      'UNAUTHORIZED',
    )
    assertError(
      t,
      await app.inject({ method: 'POST', url: '/api/v1/app/user-management/signup', payload: {} }),
      401,
      'UNAUTHORIZED',
    )
    assertError(t, await app.inject({ method: 'GET', url: '/api/v1/other', headers: {} }), 401, 'UNAUTHORIZED')
    assertError(t, await call({ method: 'GET', url: '/nowhere' }), 404, 'NOT_FOUND')
    assertError(t, await app.inject({ method: 'GET', url: '/not-api' }), 404, 'NOT_FOUND')
    const wrongMethod = await call({ method: 'GET', url: '/user-management/signup' })
    assertError(t, wrongMethod, 405, 'METHOD_NOT_ALLOWED')
    t.equal(wrongMethod.headers.allow, 'POST')
  })

  t.test('SDK tolerances: JSON content type on bodiless GET/DELETE, trailing slash, empty body', async (t) => {
    const user = await createUser(ctx)
    for (const type of ['application/json', 'application/octet-stream', 'text/plain']) {
      const get = await ctx.admin({ method: 'GET', url: `/users/${user.userId}`, headers: { 'content-type': type } })
      t.equal(get.statusCode, 200, `GET with ${type} and no body`)
    }
    const slash = await call({
      method: 'POST',
      url: '/user-management/check-auth/',
      payload: { userId: user.userId, sessionToken: user.accessToken },
    })
    t.equal(slash.json().authStatus, 'AUTHENTICATED', 'trailing slash')
    const del = await ctx.admin({
      method: 'DELETE',
      url: `/users/${user.userId}`,
      headers: { 'content-type': 'application/json' },
    })
    t.equal(del.statusCode, 200, 'DELETE with a JSON content type and no body')
    const noBody = await call({ method: 'POST', url: '/user-management/check-auth' })
    const body = assertError(t, noBody, 400, 'VALIDATION_ERROR')
    t.match(body.message, /userId/, 'a POST without a body names the missing field')
    assertError(
      t,
      await call({
        method: 'POST',
        url: '/user-management/signup',
        headers: { 'content-type': 'text/xml' },
        payload: '<a/>',
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: '/user-management/signup',
        headers: { 'content-type': 'application/json' },
        payload: '{"__proto__":{"x":1}',
      }),
      400,
      'INVALID_JSON',
    )
  })

  t.test('validation errors: message and details; bodies are not coerced, query strings are', async (t) => {
    const res = await call({ method: 'POST', url: '/user-management/signup', payload: { includeRefreshToken: 'true' } })
    const body = assertError(t, res, 400, 'VALIDATION_ERROR')
    t.match(body.message, /^body\/includeRefreshToken /)
    t.same((body.details as Array<{ path: string }>)[0]!.path, '/includeRefreshToken')
    const limited = await ctx.admin({ method: 'GET', url: '/users?limit=1' })
    t.equal(limited.statusCode, 200)
    t.ok(limited.json().items.length <= 1, '"1" in a query string is the integer 1')
    const bad = assertError(t, await ctx.admin({ method: 'GET', url: '/users?limit=1.5' }), 400, 'VALIDATION_ERROR')
    t.match(bad.message, /^querystring\/limit /)
  })

  t.test('CORS: preflight answers 204 without a key', async (t) => {
    const res = await app.inject({
      method: 'OPTIONS',
      url: '/api/v1/app/user-management/signup',
      headers: {
        origin: 'https://game.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key,content-type',
      },
    })
    t.equal(res.statusCode, 204)
    t.equal(res.headers['access-control-allow-origin'], '*')
    t.match(String(res.headers['access-control-allow-headers']), /X-API-Key/i)
    const simple = await call({
      method: 'POST',
      url: '/user-management/signup',
      headers: { origin: 'https://game.example' },
      payload: {},
    })
    t.equal(simple.headers['access-control-allow-origin'], '*')
  })

  t.test('admin API: its own key only', async (t) => {
    assertError(t, await app.inject({ method: 'GET', url: '/api/v1/admin/users' }), 401, 'UNAUTHORIZED')
    assertError(
      t,
      await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: { 'x-api-key': API_KEY } }),
      401,
      'UNAUTHORIZED',
    )
    assertError(t, await app.inject({ method: 'GET', url: '/api/v1/admin/nowhere' }), 401, 'UNAUTHORIZED')
    assertError(
      t,
      await app.inject({ method: 'GET', url: '/api/v1/admin/nowhere', headers: { 'x-admin-key': ADMIN_KEY } }),
      404,
      'NOT_FOUND',
    )
    t.equal(
      (await app.inject({ method: 'GET', url: '/api/v1/admin/users', headers: { 'x-admin-key': ADMIN_KEY } }))
        .statusCode,
      200,
    )
  })

  t.test('admin API is absent without ADMIN_API_KEY', async (t) => {
    const bare = await buildTestApp(t, dialect, { env: { ADMIN_API_KEY: undefined } })
    assertError(t, await bare.app.inject({ method: 'GET', url: '/api/v1/admin/users' }), 404, 'NOT_FOUND')
    assertError(
      t,
      await bare.app.inject({
        method: 'GET',
        url: '/api/v1/admin/users',
        headers: { 'x-admin-key': ADMIN_KEY, 'x-api-key': API_KEY },
      }),
      404,
      'NOT_FOUND',
    )
    t.equal(
      (await bare.call({ method: 'POST', url: '/user-management/signup', payload: {} })).statusCode,
      201,
      'the app API works',
    )
  })

  t.test('every operation that takes a JSON body with required fields, sent none, names what is missing', async (t) => {
    const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
    const resolve = (schema: any): any =>
      schema?.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema
    let checked = 0
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const schema = resolve(op.requestBody?.content?.['application/json']?.schema)
        if (!schema?.required?.length) continue
        const url = path.replace(/\{(\w+)\}/g, (_match: string, name: string) => {
          const parameter = op.parameters?.find((p: { name: string; in: string }) => p.in === 'path' && p.name === name)
          return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example ?? 'x'))
        })
        const key = path.startsWith('/api/v1/admin') ? { 'x-admin-key': ADMIN_KEY } : { 'x-api-key': API_KEY }
        const response = await app.inject({ method: method.toUpperCase() as 'POST', url, headers: key })
        const where = `${method.toUpperCase()} ${path}`
        t.equal(response.statusCode, 400, `${where}: 400`)
        t.match(response.json().message, new RegExp(schema.required.join('|')), `${where}: names a required field`)
        checked++
      }
    }
    t.ok(checked >= 30, `${checked} operations checked`)
  })

  t.test('OpenAPI document lists every route with its schemas', async (t) => {
    const docs = await app.inject({ method: 'GET', url: '/docs/json' })
    t.equal(docs.statusCode, 200)
    const doc = docs.json()
    t.match(doc.openapi, /^3\./)
    const expected: Array<[string, string]> = [
      ['/health', 'get'],
      ['/actuator/health', 'get'],
      ['/api/v1/public/health', 'get'],
      ['/api/v1/app/health', 'get'],
      ['/api/v1/app/user-management/signup', 'post'],
      ['/api/v1/app/user-management/signin', 'post'],
      ['/api/v1/app/user-management/check-auth', 'post'],
      ['/api/v1/app/user-management/change-name', 'post'],
      ['/api/v1/app/user-management/signout', 'post'],
      ['/api/v1/admin/users', 'get'],
      ['/api/v1/admin/users/{userId}', 'get'],
      ['/api/v1/admin/users/{userId}', 'delete'],
      ['/api/v1/admin/users/{userId}/ban', 'post'],
      ['/api/v1/admin/users/{userId}/unban', 'post'],
    ]
    for (const [path, method] of expected) {
      const op = doc.paths[path]?.[method]
      t.ok(op, `${method.toUpperCase()} ${path} is documented`)
      t.ok(op?.responses?.['200'] || op?.responses?.['201'], `${path} has a success response schema`)
      t.ok(op?.summary, `${path} has a summary`)
      t.ok(op?.tags?.length, `${path} is tagged`)
    }
    t.ok(doc.paths['/api/v1/app/user-management/signup'].post.requestBody, 'request bodies are documented')
    t.ok(doc.paths['/api/v1/app/user-management/signup'].post.responses['409'], 'error responses are documented')
    t.same(Object.keys(doc.components.securitySchemes).sort(), ['adminKey', 'adminSession', 'apiKey', 'session'])
    const allowedTags = new Set(OPERATION_TAGS)
    const usedTags = new Set<string>()
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const where = `${method.toUpperCase()} ${path}`
        t.ok(op.summary, `${where} has a summary`)
        t.ok(op.tags?.length === 1 && allowedTags.has(op.tags[0]), `${where} has one known tag`)
        op.tags?.forEach((tag: string) => usedTags.add(tag))
        const codes = Object.keys(op.responses ?? {})
        t.ok(
          codes.some((c) => /^(2..|304)$/.test(c)),
          `${where} documents its success response`,
        )
        if (!path.includes('health'))
          t.ok(
            codes.some((c) => c.startsWith('4')),
            `${where} documents its errors`,
          )
      }
    }
    for (const tag of [...FEATURE_TAGS, HEALTH_TAG]) t.ok(usedTags.has(tag), `${tag} has routes in the document`)
    const ui = await app.inject({ method: 'GET', url: '/docs' })
    t.ok(ui.statusCode === 200 || ui.statusCode === 302, 'the UI is served')
  })
})

t.test('database unreachable: health 503, API 503 with Retry-After', async (t) => {
  const sqlite = new SQLite(':memory:')
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) })
  const app = await buildApp({ config: testConfig({ DB_PATH: ':memory:' }), clock: new TestClock(), db })
  t.teardown(() => app.close())
  await db.destroy()
  const health = await app.inject({ method: 'GET', url: '/health' })
  t.equal(health.statusCode, 503)
  t.match(health.json(), { status: 'error', database: 'unreachable' })
  const actuator = await app.inject({ method: 'GET', url: '/actuator/health' })
  t.equal(actuator.statusCode, 503)
  t.equal(actuator.body, '{"status":"DOWN"}')
  const plain = await app.inject({ method: 'GET', url: '/api/v1/public/health' })
  t.equal(plain.statusCode, 503)
  t.equal(plain.body, 'DOWN')
  const api = await app.inject({
    method: 'POST',
    url: '/api/v1/app/user-management/signup',
    headers: { 'x-api-key': API_KEY },
    payload: {},
  })
  assertError(t, api, 503, 'SERVICE_UNAVAILABLE')
  t.equal(api.headers['retry-after'], '5')
})

t.test(
  'MySQL server down: 503, not 500',
  { skip: !process.env.TEST_MYSQL_URL && 'TEST_MYSQL_URL is not set' },
  async (t) => {
    const app = await buildApp({
      config: testConfig({
        DB_DRIVER: 'mysql',
        DB_HOST: '127.0.0.1',
        DB_PORT: '1',
        DB_NAME: 'nothing',
        MIGRATE_ON_START: 'false',
      }),
      clock: new TestClock(),
    })
    t.teardown(() => app.close())
    t.equal((await app.inject({ method: 'GET', url: '/health' })).statusCode, 503)
    const api = await app.inject({
      method: 'POST',
      url: '/api/v1/app/user-management/signup',
      headers: { 'x-api-key': API_KEY },
      payload: {},
    })
    assertError(t, api, 503, 'SERVICE_UNAVAILABLE')
  },
)
