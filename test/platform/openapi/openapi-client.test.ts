// A client generated from /docs/json: openapi-typescript turns the document into types, a small
// fetch client typed by them is type-checked with tsc (strict) and then run against a live server.
// If the document lies about a path, a body or a response, the check or the run fails here.
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import openapiTS, { astToString } from 'openapi-typescript'
import { API_KEY, buildTestApp } from '../../helpers/app.js'

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url))
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

/** The client a game developer would write: every path, body and answer typed by the generated `paths`. */
const CLIENT = `import type { paths } from './schema.js'

type Op<P extends keyof paths, M extends 'get' | 'post'> = paths[P] extends { [K in M]: infer O } ? O : never
type Body<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type Query<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
type Answer<O, S extends number> = O extends { responses: { [K in S]: { content: { 'application/json': infer R } } } }
  ? R
  : never

export function client(baseUrl: string, apiKey: string) {
  async function call(method: string, path: string, status: number, body?: unknown): Promise<unknown> {
    const res = await fetch(baseUrl + path, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    if (res.status !== status) throw new Error(method + ' ' + path + ': ' + res.status + ' ' + (await res.text()))
    return res.json()
  }
  function post<P extends keyof paths, S extends number>(path: P, status: S, body: Body<Op<P, 'post'>>) {
    return call('POST', path, status, body) as Promise<Answer<Op<P, 'post'>, S>>
  }
  function get<P extends keyof paths>(path: P, query: Query<Op<P, 'get'>>) {
    const search = new URLSearchParams(Object.entries(query as object).map(([k, v]): [string, string] => [k, String(v)]))
    return call('GET', path + '?' + search.toString(), 200) as Promise<Answer<Op<P, 'get'>, 200>>
  }
  return {
    post,
    get,
    signup: (username: string) =>
      post('/api/v1/app/user-management/signup', 201, { type: 'ANONYMOUS', username }),
    submit: (userId: string, score: number) => post('/api/v1/app/leaderboard/submit', 200, { userId, score }),
    top: (limit: number) => get('/api/v1/app/leaderboard/top', { limit }),
  }
}

/** Signs up (anonymous), submits a score, reads the top: what a game does on its first run. */
export async function firstRun(baseUrl: string, apiKey: string) {
  const api = client(baseUrl, apiKey)
  const me = await api.signup('Ada')
  const token: string = me.accessToken
  const anonymous: boolean = me.isAnonymous
  const submitted = await api.submit(me.userId, 4200)
  const position: number = submitted.position
  const improved: boolean = submitted.improved
  const top = await api.top(10)
  const entries = top.entries.map((entry) => ({ userId: entry.userId, username: entry.username, score: entry.score }))
  const badges: string[] = top.entries[0].profile.badges
  return { userId: me.userId, token, anonymous, position, improved, total: top.total, entries, badges }
}
`

/** Three mistakes the generated types must refuse. */
const WRONG = `import { client } from './client.js'
import type { components } from './schema.js'

export async function wrong() {
  const api = client('http://127.0.0.1:9', 'key')
  const top = await api.top(10)
  const name: string = top.entries[0].name
  await api.post('/api/v1/app/leaderboard/submit', 200, { userId: 'x', scores: 1 })
  const auth: components['schemas']['AuthResponse'] = await api.signup('Ada')
  const expires: number = auth.expiresAt
  return [name, expires]
}
`

function tsc(project: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [TSC, '-p', project], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: stdout + stderr })
    })
  })
}

t.test('a client generated from /docs/json type-checks and works', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  const base = (await ctx.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1')
  const res = await fetch(`${base}/docs/json`)
  t.equal(res.status, 200)
  const doc = (await res.json()) as Record<string, unknown>

  const dir = mkdtempSync(join(tmpdir(), 'outpost-client-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  const schema = astToString(await openapiTS(doc as never))
  t.match(schema, /"\/api\/v1\/app\/leaderboard\/top"/, 'the generated paths name the routes')
  t.match(schema, /AuthResponse: \{/, 'named components become named types')
  writeFileSync(join(dir, 'schema.ts'), schema)
  writeFileSync(join(dir, 'client.ts'), CLIENT)
  writeFileSync(join(dir, 'wrong.ts'), WRONG)
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  const compilerOptions = {
    strict: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2023'],
    types: ['node'],
    skipLibCheck: true,
    outDir: 'out',
  }
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['schema.ts', 'client.ts'] }))
  writeFileSync(
    join(dir, 'tsconfig.wrong.json'),
    JSON.stringify({
      compilerOptions: { ...compilerOptions, noEmit: true },
      files: ['schema.ts', 'client.ts', 'wrong.ts'],
    }),
  )

  const good = await tsc(join(dir, 'tsconfig.json'))
  t.equal(good.code, 0, `the client type-checks (strict) against the generated types\n${good.output}`)

  const bad = await tsc(join(dir, 'tsconfig.wrong.json'))
  t.not(bad.code, 0, 'the deliberate mistakes do not type-check')
  const errors = bad.output.split('\n').filter((line) => line.includes('error TS'))
  t.ok(
    errors.every((line) => line.includes('wrong.ts(')),
    `only wrong.ts has errors:\n${errors.join('\n')}`,
  )
  t.match(bad.output, /Property 'name' does not exist/, 'an entry has no field `name`')
  t.match(bad.output, /'scores' does not exist/, 'the submit body has no field `scores`')
  t.match(bad.output, /Type 'string' is not assignable to type 'number'/, 'expiresAt is a string')
  t.equal(errors.length, 3, 'exactly the three mistakes')

  if (good.code !== 0) return
  const { firstRun } = (await import(pathToFileURL(join(dir, 'out', 'client.js')).href)) as {
    firstRun: (base: string, key: string) => Promise<Record<string, any>>
  }
  const result = await firstRun(base, API_KEY)
  t.match(result.userId, /^[0-9a-f-]{36}$/, 'signed up')
  t.equal(result.anonymous, true)
  t.ok(result.token.length >= 32, 'an access token')
  t.equal(result.position, 1, 'the first score is first')
  t.equal(result.improved, true)
  t.equal(result.total, 1)
  t.same(result.entries, [{ userId: result.userId, username: 'Ada', score: 4200 }], 'the top shows the score')
  t.same(result.badges, [])
})
