import { request as httpRequest, Agent } from 'node:http'
import { randomUUID } from 'node:crypto'
import t, { type Test } from 'tap'
import { ADMIN_KEY, API_KEY, buildTestApp, eachDialect } from '../../helpers/app.js'

/**
 * Keys and limits are decided on the route the router matched, never on the raw request target
 * (the order of checks: rate limit, key, route, validation, session, existence). Every route of the OpenAPI document is asked for under every
 * spelling an attacker might try, over a real socket so the target reaches the server byte for byte.
 */

interface Route {
  method: string
  path: string
  admin: boolean
}

interface Answer {
  status: number
  code: string | undefined
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 })
t.teardown(() => agent.destroy())

function send(base: URL, method: string, target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method,
        path: target,
        headers: { ...headers, connection: 'keep-alive' },
        agent,
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => (text += chunk))
        res.on('end', () => {
          let code: string | undefined
          try {
            code = text ? (JSON.parse(text) as { code?: string }).code : undefined
          } catch {
            code = undefined
          }
          resolve({ status: res.statusCode ?? 0, code })
        })
      },
    )
    req.setTimeout(10_000, () => req.destroy(new Error(`timeout: ${method} ${target}`)))
    req.on('error', reject)
    // A write route gets a small JSON body so that a route that answered would have something to read.
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      req.setHeader('content-type', 'application/json')
      req.end('{}')
    } else req.end()
  })
}

/** The concrete path of a documented route: UUIDs where a UUID is asked for, a plain word elsewhere. */
function concretePath(path: string, params: Array<{ name: string; in: string; schema?: { format?: string } }>): string {
  return path.replace(/\{(\w+)\}/g, (_match, name: string) => {
    const param = params.find((p) => p.in === 'path' && p.name === name)
    return param?.schema?.format === 'uuid' ? randomUUID() : 'probe'
  })
}

const hex = (char: string) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`
const mixedCase = (segment: string) => [...segment].map((c, i) => (i % 2 ? hex(c).toLowerCase() : hex(c))).join('')

/** Every spelling of one path that an attacker might send; each names the route, or nothing. */
function spellings(path: string): Array<[string, string]> {
  const segments = path.split('/').slice(1)
  const join = (parts: string[]) => `/${parts.join('/')}`
  const out: Array<[string, string]> = [['plain', path]]
  segments.forEach((segment, i) => {
    const firstAlnum = segment.search(/[A-Za-z0-9]/)
    if (firstAlnum < 0) return
    const encoded = segment.slice(0, firstAlnum) + hex(segment[firstAlnum]) + segment.slice(firstAlnum + 1)
    out.push([`escape in segment ${i}`, join(segments.map((s, j) => (j === i ? encoded : s)))])
    const doubled =
      segment.slice(0, firstAlnum) + hex(segment[firstAlnum]).replace('%', '%25') + segment.slice(firstAlnum + 1)
    out.push([`double escape in segment ${i}`, join(segments.map((s, j) => (j === i ? doubled : s)))])
  })
  out.push(['mixed-case escapes', join(segments.map((s, i) => (i === 2 || i === 3 ? mixedCase(s) : s)))])
  out.push(['%2F', join(segments.slice(0, 3)) + '%2F' + segments.slice(3).join('/')])
  out.push(['%2f after api', `/api%2f${segments.slice(1).join('/')}`])
  out.push(['//', path.replace('/v1/', '//v1//')])
  // A server URL with a trailing slash: every SDK then sends `//api/v1/...` (served as one slash).
  out.push(['// prefix', `/${path}`])
  out.push(['/// prefix', `//${path}`])
  out.push(['/./', path.replace('/v1/', '/./v1/./')])
  out.push(['..', path.replace('/v1/', '/v1/probe/../')])
  out.push(['encoded ..', path.replace('/v1/', '/v1/probe/%2e%2e/')])
  out.push([';x', `${path};x`])
  out.push([';x mid', path.replace('/v1/', '/v1;x/')])
  out.push(['trailing /', `${path}/`])
  out.push(['absolute form', `http://outpost.test${path}`])
  out.push(['absolute form, escaped', `http://outpost.test${path.replace('/api/', '/%61pi/')}`])
  return out
}

/** Operations under /api/ that take no key, as the document declares them. */
const keyless: string[] = []

async function documentedRoutes(inject: (url: string) => Promise<{ json(): any }>): Promise<Route[]> {
  const doc = (await inject('/docs/json')).json()
  const routes: Route[] = []
  keyless.length = 0
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/api/')) continue
    for (const [method, operation] of Object.entries(item)) {
      if (operation.tags?.includes('Health')) continue
      // An operation that declares no security takes no key at all: the operators' sign-in (checked below).
      if (Array.isArray(operation.security) && operation.security.length === 0) {
        keyless.push(`${method.toUpperCase()} ${path}`)
        continue
      }
      routes.push({
        method: method.toUpperCase(),
        path: concretePath(path, [...(item.parameters ?? []), ...(operation.parameters ?? [])]),
        admin: path.startsWith('/api/v1/admin'),
      })
    }
  }
  return routes
}

eachDialect(t, async (t: Test, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  const base = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  const routes = await documentedRoutes((url) => ctx.app.inject({ method: 'GET', url }))

  t.test('the document lists app and admin routes to walk', async (t) => {
    t.ok(routes.filter((r) => r.admin).length >= 40, `${routes.filter((r) => r.admin).length} admin operations`)
    t.ok(routes.filter((r) => !r.admin).length >= 30, `${routes.filter((r) => !r.admin).length} app operations`)
    t.same(keyless, ['POST /api/v1/admin/session'], 'the one keyless operation under /api/ is the operator sign-in')
  })

  t.test('every route under every spelling: no key, the wrong key → 401; the right key passes the gate', async (t) => {
    const failures: string[] = []
    let checked = 0
    for (const route of routes) {
      for (const [name, target] of spellings(route.path)) {
        const where = `${route.method} ${target} (${name})`
        const bare = await send(base, route.method, target)
        if (bare.status !== 401 || bare.code !== 'UNAUTHORIZED')
          failures.push(`${where} without a key: ${bare.status} ${bare.code}`)
        const wrongKey: Record<string, string> = route.admin ? { 'x-api-key': API_KEY } : { 'x-admin-key': ADMIN_KEY }
        const wrong = await send(base, route.method, target, wrongKey)
        if (wrong.status !== 401 || wrong.code !== 'UNAUTHORIZED')
          failures.push(`${where} with the other API's key: ${wrong.status} ${wrong.code}`)
        const rightKey: Record<string, string> = route.admin ? { 'x-admin-key': ADMIN_KEY } : { 'x-api-key': API_KEY }
        const right = await send(base, route.method, target, rightKey)
        if (right.code === 'UNAUTHORIZED' || right.status >= 500)
          failures.push(`${where} with its key: ${right.status} ${right.code}`)
        // Repeated slashes name the route itself: the same answer as the plain path, not a 404.
        if (name.endsWith('prefix') || name === '//') {
          const plain = await send(base, route.method, route.path, rightKey)
          if (right.status !== plain.status || right.code !== plain.code)
            failures.push(`${where} with its key: ${right.status} ${right.code}, plain ${plain.status} ${plain.code}`)
        }
        checked++
      }
    }
    t.same(failures, [], `${checked} spellings of ${routes.length} routes, three requests each`)
  })
})

t.test('the rate limits count every spelling', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite', {
    env: {
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_PER_SECOND: '5',
      ADMIN_RATE_LIMIT_PER_SECOND: '7',
      // Buckets of one second's worth: 5 and 7 at once (the app clock stands still here).
      RATE_LIMIT_BURST_SECONDS: '1',
      TRUST_PROXY: '127.0.0.1',
    },
  })
  const base = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  let clients = 0
  const client = () => ({ 'x-forwarded-for': `198.51.${Math.floor(++clients / 250)}.${(clients % 250) + 1}` })

  for (const [name, target] of spellings('/api/v1/admin/users')) {
    const from = client()
    const statuses = []
    for (let i = 0; i < 8; i++) statuses.push((await send(base, 'GET', target, from)).status)
    t.same(
      statuses,
      [...Array(7).fill(401), 429],
      `admin without a key, ${name}: counted per IP against the admin limit`,
    )
  }
  for (const [name, target] of spellings('/api/v1/app/leaderboards/default/top')) {
    const from = client()
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await send(base, 'GET', target, from)).status)
    t.same(statuses, [...Array(5).fill(401), 429], `app without a key, ${name}: counted per IP`)
  }
})

t.test('the admin limit counts per credential once the key is checked', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite', {
    env: {
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_PER_SECOND: '2',
      ADMIN_RATE_LIMIT_PER_SECOND: '4',
      RATE_LIMIT_BURST_SECONDS: '1',
      TRUST_PROXY: '127.0.0.1',
    },
  })
  const base = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  const statuses = []
  // Four addresses, one credential: the key's own budget is what runs out, not each address's.
  for (let i = 0; i < 5; i++) {
    const headers = { 'x-admin-key': ADMIN_KEY, 'x-forwarded-for': `198.51.100.${i + 1}` }
    statuses.push((await send(base, 'GET', '/api/v1/admin/users', headers)).status)
  }
  t.same(
    statuses,
    [200, 200, 200, 200, 429],
    'admin calls are outside the players’ limit of 2 and inside their own of 4',
  )
})

t.test('without ADMIN_API_KEY the admin API is absent under every spelling', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite', { env: { ADMIN_API_KEY: undefined } })
  const base = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  for (const [name, target] of spellings('/api/v1/admin/users')) {
    for (const headers of [{}, { 'x-admin-key': ADMIN_KEY }, { 'x-api-key': API_KEY }] as Array<
      Record<string, string>
    >) {
      const answer = await send(base, 'GET', target, headers)
      t.same(answer, { status: 404, code: 'NOT_FOUND' }, `${name} with ${Object.keys(headers)[0] ?? 'no key'}`)
    }
  }
})

t.test('a target that is not valid UTF-8 is a 400 in the house shape', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const base = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  for (const target of ['/api/v1/app/leaderboards/%E4/top', '/api/v1/admin/users/%ED%A0%80']) {
    t.same(await send(base, 'GET', target), { status: 400, code: 'VALIDATION_ERROR' }, target)
  }
})
