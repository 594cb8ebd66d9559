import { connect, type Socket } from 'node:net'
import t, { type Test } from 'tap'
import { buildTestApp } from '../helpers/app.js'
import { loadConfig, describeConfigError } from '../../config.js'

// Small deadlines so the test runs in seconds; production defaults are in docs/configuration.md.
const HEADERS_MS = 400
const REQUEST_MS = 800
const KEEP_ALIVE_MS = 300
// Node checks deadlines every 100 ms at these settings; the rest is room for a loaded machine.
const MARGIN_MS = 700
// Each trickling client gives up on its own after this many bytes, so no loop runs unbounded.
const MAX_TRICKLE = 60

async function listening(t: Test) {
  const ctx = await buildTestApp(t, 'sqlite', {
    env: {
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
    },
  })
  const address = new URL(await ctx.app.listen({ host: '127.0.0.1', port: 0 }))
  return { host: address.hostname, port: Number(address.port) }
}

/**
 * Opens a raw connection, writes `head`, then one byte of `trickle` every 100 ms; resolves when the
 * server closes the connection, with what it answered and when.
 */
function slowClient(target: { host: string; port: number }, head: string, trickle: string) {
  return new Promise<{ ms: number; answer: string; sent: number }>((resolve) => {
    const start = performance.now()
    const socket: Socket = connect(target)
    let answer = ''
    let sent = 0
    const timer = setInterval(() => {
      if (sent >= MAX_TRICKLE || socket.destroyed) return socket.destroy()
      if (trickle === '') return
      socket.write(trickle[sent % trickle.length])
      sent++
    }, 100)
    socket.on('connect', () => socket.write(head))
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')))
    socket.on('error', () => {})
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ ms: performance.now() - start, answer, sent })
    })
  })
}

t.test('a client that sends its headers a byte at a time is cut at the header deadline', async (t) => {
  const target = await listening(t)
  const cut = await slowClient(
    target,
    'GET /api/v1/app/nowhere HTTP/1.1\r\nHost: x\r\n',
    'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
  )
  t.comment(`slow headers cut after ${cut.ms.toFixed(0)} ms (${cut.sent} bytes trickled)`)
  t.ok(cut.sent < MAX_TRICKLE, 'the server closed the connection, not the client')
  t.ok(cut.ms >= HEADERS_MS - 50 && cut.ms < HEADERS_MS + MARGIN_MS, `cut after ${cut.ms.toFixed(0)} ms`)
  t.match(cut.answer, /^HTTP\/1\.1 408 /, '408 Request Timeout')
})

t.test('a client that sends its body a byte at a time is cut at the request deadline', async (t) => {
  const target = await listening(t)
  const head =
    'POST /api/v1/app/nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n'
  const cut = await slowClient(target, head, '{"a":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb')
  t.comment(`slow body cut after ${cut.ms.toFixed(0)} ms (${cut.sent} bytes trickled)`)
  t.ok(cut.sent < MAX_TRICKLE, 'the server closed the connection, not the client')
  t.ok(cut.ms >= REQUEST_MS - 50 && cut.ms < REQUEST_MS + MARGIN_MS, `cut after ${cut.ms.toFixed(0)} ms`)
  // The key check answers before the body is read; the connection stays until the body ends or the deadline.
  t.match(cut.answer, /^HTTP\/1\.1 401 /, 'no key: 401 at once')
  t.match(cut.answer, /HTTP\/1\.1 408 Request Timeout/, 'then 408 at the deadline')
})

t.test('a connection that opens and sends nothing is closed at the header deadline', async (t) => {
  const target = await listening(t)
  const cut = await slowClient(target, '', '')
  t.comment(`silent connection closed after ${cut.ms.toFixed(0)} ms`)
  t.ok(cut.ms < HEADERS_MS + MARGIN_MS, `closed after ${cut.ms.toFixed(0)} ms`)
})

t.test('an idle keep-alive connection is closed after the keep-alive bound', async (t) => {
  const target = await listening(t)
  const request = 'GET /health HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n'
  const closed = await slowClient(target, request, '')
  t.match(closed.answer, /^HTTP\/1\.1 200 /, 'the request was answered')
  t.match(closed.answer, /keep-alive/i, 'and the connection kept open for the next one')
  t.comment(`idle keep-alive connection closed after ${closed.ms.toFixed(0)} ms`)
  // Node closes a second after the time it advertises (Keep-Alive: timeout=…), so that a request the
  // client sends just as the advertised time runs out is not lost.
  const bound = KEEP_ALIVE_MS + 1000
  t.ok(closed.ms >= bound - 50 && closed.ms < bound + MARGIN_MS, `closed after ${closed.ms.toFixed(0)} ms`)
})

t.test('a header deadline past the request deadline is refused at start, naming the variable', async (t) => {
  const error = (() => {
    try {
      loadConfig({ API_KEY: 'k'.repeat(20), HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })
    } catch (e) {
      return e as Error
    }
  })()
  t.equal(
    error && describeConfigError(error),
    'Invalid configuration: HTTP_HEADERS_TIMEOUT_MS must not exceed HTTP_REQUEST_TIMEOUT_MS',
  )
  const defaults = loadConfig({ API_KEY: 'k'.repeat(20) })
  t.same(
    [
      defaults.HTTP_HEADERS_TIMEOUT_MS,
      defaults.HTTP_REQUEST_TIMEOUT_MS,
      defaults.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      defaults.HTTP_IDLE_TIMEOUT_MS,
    ],
    [10_000, 30_000, 10_000, 120_000],
    'production defaults',
  )
})
