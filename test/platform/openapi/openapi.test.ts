import t from 'tap'
import { FEATURES } from '../../../app.js'
import { GAME_RIGHTS } from '../../../platform/security/roles.js'
import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { assertError, buildTestApp } from '../../helpers/app.js'
import {
  ERROR_COMPONENT,
  HEALTH_TAG,
  operationTagOrder,
  canonicalJson,
  operationId,
} from '../../../platform/openapi/index.js'

// The game features (those with the game's rights; operators and settings are the operators' own).
const FEATURE_TAGS = FEATURES.map((f) => f.manifest)
  .filter((m) => m.adminRights === GAME_RIGHTS)
  .map((m) => m.tag)
const OPERATION_TAGS = operationTagOrder(FEATURES.map((f) => f.manifest.tag))

type Json = Record<string, any>

/** Every operation of the document as [where, path, method, operation]. */
type Operation = [where: string, path: string, method: string, operation: Json]
function operations(doc: Json): Operation[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]): Operation => [`${method.toUpperCase()} ${path}`, path, method, op]),
  )
}

/** Every schema object under `node` (properties, items, unions, nested), for shape searches. */
function schemasIn(node: unknown, out: Json[] = []): Json[] {
  if (!node || typeof node !== 'object') return out
  if (!Array.isArray(node)) out.push(node as Json)
  for (const value of Object.values(node)) schemasIn(value, out)
  return out
}

/** A response as written, or the shared one it refers to (components/responses). */
const resolveResponse = (doc: Json, response: Json): Json =>
  typeof response.$ref === 'string' ? doc.components.responses[response.$ref.split('/').pop()!] : response

/**
 * A copy of a document schema in which every object that lists its properties refuses others: an
 * example with a misspelt field fails instead of passing unnoticed.
 */
function closed(node: unknown): unknown {
  if (!node || typeof node !== 'object') return node
  if (Array.isArray(node)) return node.map(closed)
  const copy: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === 'example' || key === 'enum' || key === 'default') copy[key] = value
    else if (key === 'properties') {
      copy[key] = Object.fromEntries(Object.entries(value as Json).map(([name, schema]) => [name, closed(schema)]))
    } else copy[key] = closed(value)
  }
  if (copy.properties && copy.additionalProperties === undefined) copy.additionalProperties = false
  return copy
}

/** Validates example values against document schemas, `$ref`s to components resolved. */
function exampleValidator(doc: Json) {
  const ajv = new Ajv({ strict: false, allErrors: true })
  addFormats.default(ajv)
  ajv.addSchema({ $id: 'doc', components: { schemas: closed(doc.components.schemas) } })
  const local = (schema: unknown) =>
    JSON.parse(JSON.stringify(closed(schema)).replaceAll('"#/components/', '"doc#/components/'))
  return (schema: unknown, value: unknown): string | null => {
    const validate = ajv.compile(local(schema) as Json)
    return validate(value) ? null : ajv.errorsText(validate.errors)
  }
}

const isErrorShape = (schema: Json) =>
  schema.type === 'object' && ['statusCode', 'error', 'code', 'message'].every((k) => k in (schema.properties ?? {}))

// The document is generated from route schemas alone, the database plays no part: one dialect is enough.
t.test('the OpenAPI document', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const res = await ctx.app.inject({ method: 'GET', url: '/docs/json' })
  t.equal(res.statusCode, 200)
  const doc: Json = res.json()
  const ops = operations(doc)
  t.ok(ops.length >= 100, `${ops.length} operations`)

  t.test('passes an OpenAPI 3 validator', async (t) => {
    t.match(doc.openapi, /^3\.0\./)
    // The validator dereferences in place: give it a copy.
    await t.resolves(SwaggerParser.validate(structuredClone(doc) as never), 'swagger-parser accepts /docs/json')
    t.notMatch(JSON.stringify(doc), /"propertyNames"/, 'no propertyNames (not in OpenAPI 3.0)')
  })

  t.test('the validation the document leaves out still holds: a bad key is a 400', async (t) => {
    const bad = await ctx.admin({ method: 'POST', url: '/remote-config/import', payload: { configs: { 'a b': '1' } } })
    assertError(t, bad, 400, 'VALIDATION_ERROR')
    const badLang = await ctx.admin({
      method: 'PUT',
      url: '/localization/en',
      payload: { translations: { 'a b': 'x' } },
    })
    assertError(t, badLang, 400, 'VALIDATION_ERROR')
  })

  t.test('every operation has a unique, readable operationId, a summary and exactly one allowed tag', async (t) => {
    const ids = new Map<string, string>()
    const allowed = new Set(OPERATION_TAGS)
    const used = new Set<string>()
    for (const [where, , , op] of ops) {
      t.match(op.operationId, /^[a-z][A-Za-z0-9]*$/, `${where} has an operationId`)
      t.notOk(ids.has(op.operationId), `${where}: ${op.operationId} is unique (also ${ids.get(op.operationId)})`)
      ids.set(op.operationId, where)
      t.ok(op.summary, `${where} has a summary`)
      t.ok(Array.isArray(op.tags) && op.tags.length === 1 && allowed.has(op.tags[0]), `${where}: one tag (${op.tags})`)
      op.tags?.forEach((tag: string) => used.add(tag))
    }
    for (const feature of FEATURE_TAGS) t.ok(used.has(feature), `${feature} has app operations`)
    t.ok(used.has(HEALTH_TAG), 'Health is used')
    t.ok(used.has('Admin · Leaderboard'), 'admin operations carry Admin · <feature>')
    t.notOk(used.has('Admin'), 'no bare Admin tag')
    t.same(
      doc.tags.map((tag: Json) => tag.name),
      OPERATION_TAGS.filter((tag) => used.has(tag)),
      'the tag list is exactly the tags in use, in the UI order',
    )
    t.equal(doc.paths['/api/v1/app/leaderboard/top'].get.operationId, 'getLeaderboardTop')
    t.equal(doc.paths['/api/v1/app/leaderboards/{boardKey}/top'].get.operationId, 'getLeaderboardsTopByBoardKey')
    t.equal(doc.paths['/api/v1/admin/leaderboards/{boardKey}'].put.operationId, 'adminPutLeaderboardsByBoardKey')
    t.same(doc.paths['/api/v1/admin/leaderboards/{boardKey}'].put.tags, ['Admin · Leaderboard'])
  })

  t.test('operationIds are stable: a second start names every operation the same', async (t) => {
    const again = await buildTestApp(t, 'sqlite')
    const second: Json = (await again.app.inject({ method: 'GET', url: '/docs/json' })).json()
    const names = (d: Json) => Object.fromEntries(operations(d).map(([where, , , op]) => [where, op.operationId]))
    t.same(names(second), names(doc))
    t.equal(
      operationId('delete', '/api/v1/admin/leaderboards/{boardKey}/entries/{userId}', ['Admin · Leaderboard']),
      'adminDeleteLeaderboardsEntriesByBoardKeyAndUserId',
      'derived from the method and the route pattern only',
    )
  })

  t.test('the error body is one named component, referenced by every error response', async (t) => {
    t.ok(doc.components.schemas[ERROR_COMPONENT], `components.schemas.${ERROR_COMPONENT}`)
    t.notOk(
      Object.keys(doc.components.schemas).some((name) => name.startsWith('def-')),
      'no generated def-N names',
    )
    t.equal(schemasIn(doc).filter(isErrorShape).length, 1, 'the error shape appears once in the document')
    const ref = { $ref: `#/components/schemas/${ERROR_COMPONENT}` }
    let refs = 0
    for (const [where, , , op] of ops) {
      if (op.tags?.includes(HEALTH_TAG)) continue // a 503 there is the health body, not an error
      for (const [status, written] of Object.entries(op.responses as Record<string, Json>)) {
        const schema = resolveResponse(doc, written).content?.['application/json']?.schema
        if (/^[45]/.test(status) && schema?.$ref) {
          t.same(schema, ref, `${where} ${status}`)
          refs++
        }
      }
    }
    t.ok(refs > 100, `${refs} error responses point at ${ERROR_COMPONENT}`)
  })

  t.test('parameters with a default are not required; responses say their status', async (t) => {
    let defaults = 0
    for (const [where, , , op] of ops) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.schema?.default === undefined) continue
        defaults++
        t.equal(parameter.required, false, `${where} ?${parameter.name} has a default, so it is optional`)
      }
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const { description } = resolveResponse(doc, response)
        t.ok(description && description !== 'Default Response', `${where} ${status} has a real description`)
      }
    }
    t.ok(defaults >= 30, `${defaults} parameters with defaults`)
    // Body fields with a default are filled in when absent, so a caller may leave them out too.
    for (const [where, , , op] of ops) {
      for (const schema of schemasIn(op.requestBody)) {
        for (const name of Array.isArray(schema.required) ? schema.required : []) {
          t.equal(schema.properties?.[name]?.default, undefined, `${where}: required body field ${name} has no default`)
        }
      }
    }
    const cosmetic = doc.paths['/api/v1/admin/cosmetics/{id}'].put.requestBody.content['application/json'].schema
    t.match(cosmetic.properties.locked, { default: false })
    t.notOk(cosmetic.required?.includes('locked'), 'PUT /cosmetics/{id}: locked (default false) is optional')
    const limit = doc.paths['/api/v1/admin/users'].get.parameters.find((p: Json) => p.name === 'limit')
    t.match(limit, { required: false, schema: { default: 50 } })
    t.equal(
      resolveResponse(doc, doc.paths['/api/v1/app/user-management/signup'].post.responses['409']).description,
      'Conflict',
    )
  })

  t.test('every operation is documented: description, examples, one tag', async (t) => {
    const check = exampleValidator(doc)
    let requestExamples = 0
    let responseExamples = 0
    for (const [where, , , op] of ops) {
      t.ok(typeof op.description === 'string' && op.description.length >= 40, `${where} has a description`)
      t.not(op.description?.trim(), op.summary?.trim(), `${where}: the description says more than the summary`)
      t.equal(op.tags?.length, 1, `${where} has exactly one tag`)
      if (op.requestBody) {
        const [media, entry] = Object.entries(op.requestBody.content as Json)[0]
        t.not(entry.example, undefined, `${where} has a request example (${media})`)
        if (entry.example !== undefined) {
          requestExamples++
          t.equal(check(entry.schema, entry.example), null, `${where}: the request example fits the body schema`)
        }
      }
      // The success answer: one example at least, on a 2xx (signup answers 201 created or 200 found).
      const successes = Object.keys(op.responses).filter((status) => /^2\d\d$/.test(status))
      t.ok(successes.length, `${where} declares a success status`)
      let examples = 0
      let bodies = 0
      for (const status of successes) {
        const content = resolveResponse(doc, op.responses[status]).content as Json | undefined
        if (!content) continue
        bodies++
        const entry = content['application/json'] ?? Object.values(content)[0]
        if (entry.example === undefined) continue
        examples++
        responseExamples++
        t.equal(check(entry.schema, entry.example), null, `${where}: the ${status} example fits its schema`)
      }
      if (bodies) t.ok(examples, `${where} has a success response example (${successes.join(', ')})`)
      for (const parameter of op.parameters ?? []) {
        if (parameter.example === undefined) continue
        t.equal(check(parameter.schema, parameter.example), null, `${where}: the example of ${parameter.name} fits`)
      }
      for (const parameter of (op.parameters ?? []).filter((p: Json) => p.in === 'path')) {
        t.not(parameter.example, undefined, `${where}: path parameter ${parameter.name} has an example`)
      }
    }
    t.ok(requestExamples >= 40, `${requestExamples} request examples`)
    t.ok(responseExamples >= 100, `${responseExamples} response examples`)
  })

  t.test('the examples are checked: a wrong one fails', async (t) => {
    const check = exampleValidator(doc)
    const top = doc.paths['/api/v1/app/leaderboard/top'].get.responses['200'].content['application/json']
    t.equal(check(top.schema, top.example), null)
    const misspelt = structuredClone(top.example)
    misspelt.entries[0].userid = misspelt.entries[0].userId
    delete misspelt.entries[0].userId
    t.match(check(top.schema, misspelt), /userId|additional/, 'a misspelt field of a named component is caught')
    t.match(check(top.schema, { ...top.example, total: '3' }), /integer/, 'a wrongly typed field is caught')
  })

  t.test('raw bytes are a binary string, never the JSON object or its example', async (t) => {
    let seen = 0
    for (const [where, , , op] of ops) {
      const contents = [
        op.requestBody?.content,
        ...Object.values(op.responses as Json).map((r) => resolveResponse(doc, r).content),
      ]
      for (const content of contents) {
        const bytes = (content as Json | undefined)?.['application/octet-stream']
        if (!bytes) continue
        seen++
        t.match(bytes.schema, { type: 'string', format: 'binary' }, `${where}: octet-stream is bytes`)
        t.notOk(bytes.example !== undefined && typeof bytes.example === 'object', `${where}: no JSON object example`)
      }
    }
    t.ok(seen >= 3, `${seen} octet-stream bodies (the cloud save's upload and both loads)`)
    const save = doc.paths['/api/v1/app/cloud-save/save'].post.requestBody.content
    t.ok(save['application/json'].example.userId, 'the JSON form keeps its example')
  })

  t.test('the game API comes first, the admin API apart', async (t) => {
    const names = doc.tags.map((tag: Json) => tag.name as string)
    const firstAdmin = names.findIndex((name: string) => name.startsWith('Admin · '))
    const lastGame = names.findLastIndex((name: string) => !name.startsWith('Admin · ') && name !== HEALTH_TAG)
    t.ok(lastGame < firstAdmin, 'every game tag is listed before the first admin tag')
    for (const tag of doc.tags as Json[]) t.ok(tag.description?.length > 20, `${tag.name} says whose API it is`)
    const groups = doc['x-tagGroups'] as Array<{ name: string; tags: string[] }>
    t.same(
      groups.map((group) => group.name),
      ['Game API (/api/v1/app)', 'Admin API (/api/v1/admin)', 'Health'],
    )
    t.same(groups.flatMap((group) => group.tags).sort(), [...names].sort(), 'every tag in one group')
    t.ok(
      groups[1]!.tags.every((tag) => tag.startsWith('Admin · ')),
      'the admin group holds the admin tags only',
    )
    t.ok(
      FEATURE_TAGS.every((tag) => groups[0]!.tags.includes(tag)),
      'the game group holds every game feature',
    )
  })

  t.test('error codes are a list by status under the prose', async (t) => {
    const save = doc.paths['/api/v1/app/cloud-save/save'].post.description as string
    const list = save.slice(save.indexOf('**Errors**'))
    t.match(list, /^- \*\*409\*\* `CONFLICT`$/m)
    t.match(list, /^- \*\*403\*\* `SESSION_FORBIDDEN`, `USER_BANNED`$/m)
    t.match(list, /^- \*\*401\*\* `UNAUTHORIZED` when X-API-Key is missing or wrong; also `SESSION_REQUIRED`$/m)
    t.match(list, /^- \*\*429\*\* with an empty body/m)
    for (const [where, , , op] of ops) {
      const mentioned = [...String(op.description).matchAll(/\b([45]\d\d) `([A-Z][A-Z0-9_]+)`/g)]
      if (!mentioned.length) continue
      const errors = String(op.description).split('**Errors**')[1] ?? ''
      for (const [, status, code] of mentioned) {
        t.match(errors, new RegExp(`^- \\*\\*${status}\\*\\* .*\`${code}\``, 'm'), `${where}: ${status} ${code} listed`)
      }
    }
  })

  t.test('every described operation exists (no stale docs)', async (t) => {
    const present = new Set(ops.map(([where]) => where))
    for (const key of ctx.app.openapi.operations.keys())
      t.ok(present.has(key), `${key} is an operation of the document`)
  })

  t.test('shared shapes are named components, never inline copies', async (t) => {
    const names = Object.keys(doc.components.schemas)
    for (const name of [
      'AuthResponse',
      'LeaderboardEntry',
      'LeaderboardTop',
      'PublicProfile',
      'AdminUser',
      'NewsItem',
    ]) {
      t.ok(names.includes(name), `components.schemas.${name}`)
    }
    t.notOk(
      names.some((name) => name.startsWith('def-')),
      'no generated def-N names',
    )
    const withoutExamples = (node: unknown): unknown =>
      JSON.parse(JSON.stringify(node, (key, value) => (key === 'example' ? undefined : value)))
    const named = new Map(
      Object.entries(doc.components.schemas as Json).map(([name, schema]) => [canonicalJson(schema), name]),
    )
    // No operation holds a copy of a named shape; no named shape holds a copy of another.
    for (const [where, , , op] of ops) {
      for (const schema of schemasIn(withoutExamples(op))) {
        const copy = named.get(canonicalJson(schema))
        t.notOk(copy, `${where}: an inline copy of ${copy}`)
        if (copy) break
      }
    }
    for (const [name, component] of Object.entries(doc.components.schemas as Json)) {
      for (const schema of schemasIn(component).slice(1)) {
        const copy = named.get(canonicalJson(schema))
        t.notOk(copy, `${name}: an inline copy of ${copy}`)
        if (copy) break
      }
    }
    // An object shape of three or more properties used by two operations or more has a name.
    const users = new Map<string, Set<string>>()
    for (const [where, , , op] of ops) {
      for (const schema of schemasIn(withoutExamples([op.requestBody, op.responses]))) {
        if (Object.keys(schema.properties ?? {}).length < 3) continue
        const key = canonicalJson(schema)
        users.set(key, (users.get(key) ?? new Set()).add(where))
      }
    }
    for (const [shape, where] of users) {
      t.ok(where.size < 2, `a shape used by ${[...where].join(', ')} is a named component: ${shape.slice(0, 120)}`)
    }
    const errorRefs = ops.flatMap(([, , , op]) => Object.values(op.responses as Json)).filter((r: Json) => r.$ref)
    t.ok(errorRefs.length > 300, `${errorRefs.length} error responses refer to components/responses`)
  })
})

t.test('/docs works from any host over plain HTTP', async (t) => {
  const { app } = await buildTestApp(t, 'sqlite')
  const host = 'outpost.example:8080'
  const page = await app.inject({ method: 'GET', url: '/docs', headers: { host } })
  t.equal(page.statusCode, 200)
  const csp = String(page.headers['content-security-policy'])
  t.match(csp, /default-src 'self'/, 'the page still has a CSP')
  t.match(csp, /script-src 'self'[ ;]/, 'scripts from the page only')
  t.match(csp, /style-src 'self' 'unsafe-inline'/, 'the style element Swagger UI adds while it renders is allowed')
  t.match(page.body, /<title>Outpost API<\/title>/, "Outpost's name on the tab")
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' })
  t.match(initializer.body, 'data:image/svg+xml;base64,', "the top bar's logo is Outpost's wordmark")
  t.match(
    Buffer.from(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)![1]!, 'base64').toString(),
    />Outpost</,
  )
  t.notMatch(csp, /upgrade-insecure-requests/, 'no upgrade to HTTPS for the UI files')
  const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1])
  t.ok(assets.length >= 4, `${assets.length} assets on the page`)
  for (const asset of new Set([...assets, '/docs/static/swagger-initializer.js', '/docs/json'])) {
    const url = new URL(asset, `http://${host}/docs/`)
    t.equal(url.host, host, `${asset} is on the page's own host`)
    const res = await app.inject({ method: 'GET', url: url.pathname, headers: { host } })
    t.equal(res.statusCode, 200, `${url.pathname} answers 200 with Host: ${host}`)
    t.notMatch(String(res.headers['content-security-policy'] ?? ''), /upgrade-insecure-requests/, url.pathname)
  }
})
