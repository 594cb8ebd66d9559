// Text that must never be stored (issue 38): a NUL in any text field of any JSON body is refused (400
// VALIDATION_ERROR), except in crash reports, which take it out rather than lose the report; and no
// name a player shows others may hold control or bidirectional override characters (U+202E turns
// "evil" into "live" on a board). The fields come from the OpenAPI document, never from a hand list.
import tap, { type Test } from 'tap'
import { ADMIN_KEY, API_KEY, assertError, buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { CREATE, SESSION } from '../../fixtures/crash-reporting.js'
import { NAME_PATTERN } from '../../../platform/schemas/common.js'

type Json = any
type Segment = string | number

/** Routes that take a NUL out instead of refusing it (contract §6.3). */
const STRIPPING = new Set([`post /api/v1/app${CREATE}`, `post /api/v1/app${SESSION}`])

/** Every place in a body schema where a string is accepted, as a path of property names and indexes. */
function stringPaths(doc: Json, schema: Json): Segment[][] {
  const unique = new Map(stringFields(doc, schema).map(({ path }) => [JSON.stringify(path), path]))
  return [...unique.values()]
}

/** The same, with the string schema accepted there (one entry per branch of a union). */
function stringFields(
  doc: Json,
  schema: Json,
  path: Segment[] = [],
  seen = new Set<Json>(),
): Array<{ path: Segment[]; schema: Json }> {
  if (schema?.$ref) schema = doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]
  if (!schema || seen.has(schema)) return []
  const inner = new Set(seen).add(schema)
  const found: Array<{ path: Segment[]; schema: Json }> = []
  for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    found.push(...stringFields(doc, branch, path, inner))
  }
  const types = [schema.type ?? []].flat()
  if (types.includes('string')) found.push({ path, schema })
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    found.push(...stringFields(doc, property, [...path, name], inner))
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    found.push(...stringFields(doc, schema.additionalProperties, [...path, 'k'], inner))
  }
  if (schema.items) found.push(...stringFields(doc, schema.items, [...path, 0], inner))
  return found
}

/** The smallest body that holds `value` at `path`. */
function bodyWith(path: Segment[], value: unknown): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path
  return typeof head === 'number' ? [bodyWith(rest, value)] : { [head!]: bodyWith(rest, value) }
}

const pointer = (path: Segment[]) => `/${path.map(String).join('/')}`

interface Operation {
  method: string
  path: string
  url: string
  schema: Json
  headers: Record<string, string>
}

async function jsonOperations(app: TestApp['app']): Promise<{ doc: Json; operations: Operation[] }> {
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json()
  const operations: Operation[] = []
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      const schema = op.requestBody?.content?.['application/json']?.schema
      if (!schema) continue
      const url = path.replace(/\{(\w+)\}/g, (_m: string, name: string) => {
        const parameter = op.parameters?.find((p: Json) => p.in === 'path' && p.name === name)
        return encodeURIComponent(String(parameter?.example ?? parameter?.schema?.example ?? 'x'))
      })
      const headers: Record<string, string> = path.startsWith('/api/v1/admin')
        ? { 'x-admin-key': ADMIN_KEY }
        : { 'x-api-key': API_KEY }
      operations.push({ method, path, url, schema, headers: { ...headers, 'content-type': 'application/json' } })
    }
  }
  return { doc, operations }
}

/** Rows per table: what a refused request must leave as it was. */
async function rowCounts(ctx: TestApp): Promise<Record<string, number>> {
  const counts: Record<string, number> = {}
  for (const table of await ctx.app.db.introspection.getTables()) {
    const row = await ctx.app.db
      .selectFrom(table.name as 'users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    counts[table.name] = Number(row.n)
  }
  return counts
}

eachDialect(tap, async (t: Test, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const { doc, operations } = await jsonOperations(ctx.app)

  t.test('a NUL in any text field of any JSON body is 400 VALIDATION_ERROR, and nothing is stored', async (t) => {
    const before = await rowCounts(ctx)
    let fields = 0
    for (const op of operations) {
      if (STRIPPING.has(`${op.method} ${op.path}`)) continue
      for (const path of stringPaths(doc, op.schema)) {
        const where = `${op.method.toUpperCase()} ${op.path} ${pointer(path)}`
        const response = await ctx.app.inject({
          method: op.method.toUpperCase() as 'POST',
          url: op.url,
          headers: op.headers,
          payload: JSON.stringify(bodyWith(path, 'a\u0000b')),
        })
        t.equal(response.statusCode, 400, `${where}: 400`)
        t.equal(response.json().code, 'VALIDATION_ERROR', `${where}: VALIDATION_ERROR`)
        t.same(
          response.json().details,
          [{ path: pointer(path), message: 'must not hold a NUL character (U+0000)' }],
          `${where}: the details name the field`,
        )
        fields++
      }
    }
    // Also as a property name, where a body takes free-form objects.
    const key = await ctx.call({
      method: 'PUT',
      url: '/player-profile',
      headers: { 'content-type': 'application/json' },
      payload: '{"userId":"0b6f3c5e-8a1e-4c2b-9d3e-4f5a6b7c8d9e","customData":{"a\\u0000":1}}',
    })
    t.same(assertError(t, key, 400, 'VALIDATION_ERROR').details, [
      { path: '/customData', message: 'has a property name holding a NUL character (U+0000)' },
    ])
    t.ok(fields >= 120, `${fields} text fields of ${operations.length} operations checked`)
    t.same(await rowCounts(ctx), before, 'no table changed')
  })

  t.test('a real player writing a NUL is refused too: feedback, logs, saves, profile', async (t) => {
    const user = await createUser(ctx)
    const before = await rowCounts(ctx)
    const attempts: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/user-feedback/submit', { userId: user.userId, title: 'Map\u0000', message: 'freezes' }],
      ['POST', '/user-logs/create', { userId: user.userId, message: 'entered\u0000level', type: 'INFO' }],
      ['POST', '/cloud-save/save', { userId: user.userId, saveData: '{"hp":"\u0000"}' }],
      ['PUT', '/player-profile', { userId: user.userId, customData: { note: 'x\u0000' } }],
    ]
    for (const [method, url, payload] of attempts) {
      const response = await ctx.call({ method: method as 'POST', url, payload, headers: bearer(user) })
      assertError(t, response, 400, 'VALIDATION_ERROR')
    }
    t.same(await rowCounts(ctx), before, 'nothing stored')
  })

  t.test('crash reports never lose a report for a NUL: it is taken out of every text field', async (t) => {
    const create = operations.find((op) => op.path === `/api/v1/app${CREATE}`)!
    const session = operations.find((op) => op.path === `/api/v1/app${SESSION}`)!
    // Every string field of the report from the document at once, each holding a NUL.
    let report: Json = {}
    const paths = stringPaths(doc, create.schema)
    for (const path of paths) report = merge(report, bodyWith(path, path[0] === 'type' ? 'CRA\u0000SH' : 'a\u0000b'))
    t.ok(paths.length >= 12, `${paths.length} text fields of a crash report`)
    // customKeys is a free-form object: a NUL in a name and in a value.
    report.customKeys = { k: 'a\u0000b', 'n\u0000ul': 'x' }
    const created = await ctx.call({ method: 'POST', url: CREATE, payload: report })
    t.equal(created.statusCode, 201, created.body)
    const row = await ctx.app.db
      .selectFrom('crash_reports')
      .selectAll()
      .where('id', '=', created.json().id)
      .executeTakeFirstOrThrow()
    t.notMatch(JSON.stringify(row), /\\u0000/, 'no NUL stored anywhere in the report')
    t.equal(row.type, 'CRASH')
    t.equal(row.message, 'ab')
    t.equal(row.device_model, 'ab')
    t.match(row.breadcrumbs, /"message":"ab"/)
    t.match(row.custom_keys, /"k":"ab"/)
    t.match(row.custom_keys, /"nul":"x"/)
    const registered = await ctx.call({
      method: 'POST',
      url: SESSION,
      payload: { sessionId: 'run\u0000-1', appVersion: '1.0\u0000', platform: 'android', userId: 'x\u0000' },
    })
    t.equal(registered.statusCode, 201)
    const stored = await ctx.app.db
      .selectFrom('crash_sessions')
      .selectAll()
      .where('session_id', '=', 'run-1')
      .executeTakeFirst()
    t.equal(stored?.app_version, '1.0', 'the session is stored without the NUL')
    t.ok(session, 'the session route is in the document')
  })

  t.test('every name a player shows others refuses control and bidirectional override characters', async (t) => {
    // The name fields, from the document: every string field under the shared name rule.
    const named = new Set<string>()
    for (const op of operations) {
      for (const field of stringFields(doc, op.schema)) {
        if (field.schema.pattern === NAME_PATTERN)
          named.add(`${op.method} ${op.path.replace(/^\/api\/v1\/(app|admin)/, '$1')} ${pointer(field.path)}`)
      }
    }
    const user = await createUser(ctx)
    const uid = user.userId
    // A valid body per name field, so the name is the only thing wrong with it.
    const bodies: Record<string, { base: Record<string, unknown>; field: string; auth?: boolean }> = {
      'post app/user-management/signup /username': { base: { type: 'ANONYMOUS' }, field: 'username' },
      'post app/user-management/signup /displayName': { base: { type: 'ANONYMOUS' }, field: 'displayName' },
      'post app/user-management/signup /appleFirstName': {
        base: { type: 'APPLE', appleIdentityToken: 'x' },
        field: 'appleFirstName',
      },
      'post app/user-management/signup /appleLastName': {
        base: { type: 'APPLE', appleIdentityToken: 'x' },
        field: 'appleLastName',
      },
      'post app/user-management/signin /username': {
        base: { type: 'APPLE', appleIdentityToken: 'x' },
        field: 'username',
      },
      'post app/user-management/signin /appleFirstName': {
        base: { type: 'APPLE', appleIdentityToken: 'x' },
        field: 'appleFirstName',
      },
      'post app/user-management/signin /appleLastName': {
        base: { type: 'APPLE', appleIdentityToken: 'x' },
        field: 'appleLastName',
      },
      'post app/user-management/change-name /newName': { base: { userId: uid }, field: 'newName', auth: true },
      'put app/player-profile /displayName': { base: { userId: uid }, field: 'displayName', auth: true },
      'put admin/leaderboards/{boardKey} /name': { base: {}, field: 'name' },
      'put admin/cosmetics/{id} /name': { base: { type: 'avatar' }, field: 'name' },
    }
    t.same([...named].sort(), Object.keys(bodies).sort(), 'every name field of the document is tried below')
    const before = await rowCounts(ctx)
    for (const key of named) {
      const entry = bodies[key]
      if (!entry) continue
      const op = operations.find(
        (o) => `${o.method} ${o.path.replace(/^\/api\/v1\/(app|admin)/, '$1')} /${entry.field}` === key,
      )!
      for (const bad of [...BIDI_AND_CONTROLS, ...INVISIBLE]) {
        const response = await ctx.app.inject({
          method: op.method.toUpperCase() as 'POST',
          url: op.url,
          headers: { ...op.headers, ...(entry.auth ? bearer(user) : {}) },
          payload: { ...entry.base, [entry.field]: bad },
        })
        t.equal(response.statusCode, 400, `${key} ${codePoints(bad)}: 400`)
        t.equal(response.json().details?.[0]?.path, `/${entry.field}`, `${key}: names the field`)
        t.match(response.json().details?.[0]?.message, /invisible/, `${key}: says what is wrong`)
      }
    }
    t.same(await rowCounts(ctx), before, 'nothing stored')
    // What stays allowed: letters of every script, emoji, a joiner inside an emoji, spaces.
    for (const newName of ['Ælfrida שלום 👩‍🚀', '🏳️‍🌈 Łukasz', 'дев 👩🏽‍💻', '한글 이름', 'ناز']) {
      const fine = await ctx.call({
        method: 'POST',
        url: '/user-management/change-name',
        headers: bearer(user),
        payload: { userId: uid, newName },
      })
      t.equal(fine.statusCode, 200, `${codePoints(newName)}: ${fine.body}`)
    }
  })

  t.test('sign-up as the SDKs send it refuses a name with an invisible character', async (t) => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/v1/app/user-management/signup',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      payload: '{"type":"ANONYMOUS","username":"a\\u200bb"}',
    })
    assertError(t, res, 400, 'VALIDATION_ERROR')
    t.same(res.json().details, [
      { path: '/username', message: 'must not hold control, line-break, bidirectional or invisible characters' },
    ])
  })
})

/** Controls, line breaks and the bidirectional overrides. */
const BIDI_AND_CONTROLS = ['\u202Eevil', 'a\u2066b', 'a\u200Fb', 'a\u061Cb', 'a\u0085b', 'a\nb', 'a\u2028b']
/** Characters that show nothing: format characters (Cf), tags, blank fillers, a joiner outside an emoji. */
const INVISIBLE = [
  'a\u200Bb',
  '\uFEFFname',
  'a\u00ADb',
  '\u3164',
  'a\u3164',
  '\u115F\u1160',
  '\uFFA0',
  '\u2800',
  'a\u2060b',
  'a\u{E0041}\u{E007F}',
  'a\u200Cb',
  'a\u200Db',
  '\u200D\u{1F469}',
  '\u{1F469}\u200D',
]

/** Text as code points, for a test name: a raw U+2028 would end the line of the TAP stream. */
const codePoints = (text: string) =>
  [...text].map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`).join(' ')

function merge(a: Json, b: Json): Json {
  if (Array.isArray(a) && Array.isArray(b)) return [merge(a[0] ?? {}, b[0])]
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const out = { ...a }
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v
    return out
  }
  return b
}
