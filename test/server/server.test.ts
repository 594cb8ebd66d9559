import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { freePort } from '../../bench/processes.js'

const SERVER = fileURLToPath(new URL('../../server.js', import.meta.url))

/** The compiled server as `npm start` runs it, in its own working directory. */
function start(cwd: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER], {
    cwd,
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return { child, exited, output: () => output }
}

async function waitForHealth(port: number, child: ChildProcess, output: () => string) {
  // A first start on a loaded machine migrates a new database: up to 30 s before it answers.
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output()}`)
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`)
      if (res.ok) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`server did not become healthy:\n${output()}`)
}

const tempDir = (t: Test) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-server-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

// A port the kernel has just handed out free: a random one could be a connection's source port.
const port = freePort

t.test('fresh checkout: writes .env with keys, prints them once, serves /health on SQLite', async (t) => {
  const cwd = tempDir(t)
  const p = await port()
  const server = start(cwd, { PORT: String(p) })
  t.teardown(() => server.child.kill('SIGKILL'))
  await waitForHealth(p, server.child, server.output)
  const env = readFileSync(join(cwd, '.env'), 'utf8')
  const apiKey = /^API_KEY=(.+)$/m.exec(env)?.[1]
  t.ok(apiKey, '.env has an API key')
  t.match(server.output(), apiKey!, 'the key was printed')
  t.ok(existsSync(join(cwd, 'data', 'outpost.db')), 'SQLite database in ./data')
  const signup = await fetch(`http://127.0.0.1:${p}/api/v1/app/user-management/signup`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey!, 'content-type': 'application/json' },
    body: '{}',
  })
  t.equal(signup.status, 201, 'the generated key works')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'clean exit on SIGTERM')

  const again = start(cwd, { PORT: String(p) })
  t.teardown(() => again.child.kill('SIGKILL'))
  await waitForHealth(p, again.child, again.output)
  t.notMatch(again.output(), apiKey!, 'keys are printed only once')
  again.child.kill('SIGINT')
  t.equal(await again.exited, 0)
})

t.test('the start-up line names the listening address, the docs URL and the console URL', async (t) => {
  const p = await port()
  const server = start(tempDir(t), { API_KEY: 'k'.repeat(20), PORT: String(p), LOG_LEVEL: 'info' })
  t.teardown(() => server.child.kill('SIGKILL'))
  await waitForHealth(p, server.child, server.output)
  // The line is written just after the socket listens: /health may answer a moment before it is out.
  for (let i = 0; i < 50 && !server.output().includes('Outpost listening'); i++)
    await new Promise((resolve) => setTimeout(resolve, 100))
  t.match(server.output(), `Outpost listening on http://127.0.0.1:${p}, API docs at http://127.0.0.1:${p}/docs`)
  const docs = await fetch(`http://127.0.0.1:${p}/docs`)
  t.equal(docs.status, 200, 'the named URL serves the docs')
  t.match(server.output(), `, console at http://127.0.0.1:${p}/console/ (version`)
  const consolePage = await fetch(`http://127.0.0.1:${p}/console/`)
  t.equal(consolePage.status, 200, 'the named URL serves the console')
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
})

t.test('a bad setting stops the start with one line naming it', async (t) => {
  const server = start(tempDir(t), { API_KEY: 'k'.repeat(20), PORT: 'http' })
  t.equal(await server.exited, 1)
  t.match(server.output(), /^Invalid configuration: PORT must be integer\n$/)
})

t.test('SIGTERM lets an in-flight request finish', async (t) => {
  const p = await port()
  const key = 'k'.repeat(20)
  const server = start(tempDir(t), { API_KEY: key, PORT: String(p) })
  t.teardown(() => server.child.kill('SIGKILL'))
  await waitForHealth(p, server.child, server.output)
  const body = JSON.stringify({ username: 'Late' })
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: p,
        method: 'POST',
        path: '/api/v1/app/user-management/signup',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () => resolve({ status: res.statusCode!, body: text }))
      },
    )
    req.on('error', reject)
    req.write(body.slice(0, 5))
    setTimeout(() => {
      server.child.kill('SIGTERM')
      setTimeout(() => req.end(body.slice(5)), 300)
    }, 200)
  })
  const res = await response
  t.equal(res.status, 201, 'the request that was in flight got its answer')
  t.equal(JSON.parse(res.body).username, 'Late')
  t.equal(await server.exited, 0)
  await t.rejects(fetch(`http://127.0.0.1:${p}/health`), 'no longer listening')
})

t.test('npm run migrate applies the migrations once', async (t) => {
  const cwd = tempDir(t)
  const run = () => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('../../scripts/migrate/index.js', import.meta.url))], {
      cwd,
      env: { PATH: process.env.PATH ?? '', API_KEY: 'k'.repeat(20) },
    })
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    return new Promise<{ code: number | null; output: string }>((resolve) =>
      child.on('exit', (code) => resolve({ code, output })),
    )
  }
  const first = await run()
  t.equal(first.code, 0)
  t.match(first.output, /^Applied: 0001_create_users/)
  const second = await run()
  t.equal(second.code, 0)
  t.equal(second.output, 'Database is up to date\n')
  const broken = spawn(process.execPath, [fileURLToPath(new URL('../../scripts/migrate/index.js', import.meta.url))], {
    cwd,
    env: { PATH: process.env.PATH ?? '' },
  })
  let error = ''
  broken.stderr.on('data', (d) => (error += d))
  t.equal(await new Promise((resolve) => broken.on('exit', resolve)), 1)
  t.match(error, /Invalid configuration: API_KEY is required/)
})

t.test('compat mode logs one warning at start naming what it allows; strict mode none', async (t) => {
  const key = 'k'.repeat(20)
  const lines = (output: string) => output.split('\n').filter((line) => line.includes('AUTH_MODE=compat'))
  const compatPort = await port()
  const compat = start(tempDir(t), { API_KEY: key, PORT: String(compatPort) })
  t.teardown(() => compat.child.kill('SIGKILL'))
  await waitForHealth(compatPort, compat.child, compat.output)
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`http://127.0.0.1:${compatPort}/api/v1/app/user-management/signup`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: '{}',
    })
    t.equal(res.status, 201)
  }
  const warned = lines(compat.output())
  t.equal(warned.length, 1, 'exactly one line, however many requests follow')
  const entry = JSON.parse(warned[0]!) as { level: number; msg: string }
  t.equal(entry.level, 40, 'a warning')
  t.match(entry.msg, /AUTH_MODE=strict/)
  t.match(entry.msg, /docs\/security\.md/, 'it names the page that explains the modes')
  compat.child.kill('SIGTERM')
  t.equal(await compat.exited, 0)

  const strictPort = await port()
  const strict = start(tempDir(t), { API_KEY: key, PORT: String(strictPort), AUTH_MODE: 'strict' })
  t.teardown(() => strict.child.kill('SIGKILL'))
  await waitForHealth(strictPort, strict.child, strict.output)
  t.same(lines(strict.output()), [], 'no warning in strict mode')
  strict.child.kill('SIGTERM')
  t.equal(await strict.exited, 0)
})
