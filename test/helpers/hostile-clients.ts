import { API_KEY } from './app.js'

// The hostile-bodies test's clients (test/platform/http/hostile-bodies.test.ts), run as child
// processes of their own (`node -e`), so that the CPU time the test measures is the server's alone.

// One request per message; the body is built in the worker from a recipe, so building it costs the
// server's thread nothing either.
export const CLIENT = `
process.on('disconnect', () => process.exit(0))
const shapes = {
  deepArrays: (n) => '['.repeat(n / 2) + ']'.repeat(n / 2),
  deepObjects: (n) => '{"a":'.repeat(Math.floor((n - 1) / 6)) + '1' + '}'.repeat(Math.floor((n - 1) / 6)),
  brokenDeep: (n) => '['.repeat(n),
  wideObject: (n) => { const parts = []; let size = 2; for (let i = 0; size < n - 16; i++) { const p = '"' + i.toString(36) + '":1'; parts.push(p); size += p.length + 1 } return '{' + parts.join(',') + '}' },
  numbers: (n) => '{"a":[' + Array(Math.floor((n - 8) / 2)).fill('1').join(',') + ']}',
  justUnderValues: (n) => '{' + Array.from({ length: n }, (_, i) => '"k' + i + '":' + i).join(',') + '}',
  longString: (n, extra) => JSON.stringify({ ...extra, saveData: 'x'.repeat(n - 80), username: undefined }),
  longName: (n) => JSON.stringify({ username: 'x'.repeat(n - 20) }),
  escapes: (n, extra) => '{"userId":"' + extra.userId + '","saveData":"' + '\\\\n'.repeat(Math.floor((n - 80) / 2)) + '"}',
  alternatingEscapes: (n, extra) => '{"userId":"' + extra.userId + '","saveData":"' + 'a\\\\n'.repeat(Math.floor((n - 80) / 3)) + '"}',
  whitespace: (n) => '{' + ' '.repeat(n - 2) + '}',
  base64State: (n, extra) => '{"userId":"' + extra.userId + '","context":{"initialState":"' + 'QUJD'.repeat(Math.floor((n - 100) / 4)) + '"}}',
  escapedState: (n, extra) => '{"userId":"' + extra.userId + '","context":{"initialState":"' + '\\\\u0041'.repeat(Math.floor((n - 100) / 6)) + '"}}',
  controlChars: (n, extra) => '{"userId":"' + extra.userId + '","saveData":"' + '\\\\u0001'.repeat(n) + '"}',
}
process.on('message', async ({ id, url, shape, size, extra }) => {
  try {
    const body = shapes[shape](size, extra)
    const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': '${API_KEY}' }, body })
    process.send({ id, status: response.status, body: await response.text(), bytes: Buffer.byteLength(body) })
  } catch (error) {
    process.send({ id, status: 0, body: String(error), bytes: 0 })
  }
})
`

// GETs /health every few milliseconds until told to stop, then reports the latencies.
export const HEALTH = `
process.on('disconnect', () => process.exit(0))
let running = true
const latencies = []
process.on('message', () => { running = false })
;(async () => {
  const deadline = Date.now() + 120000
  while (running && Date.now() < deadline) {
    const start = performance.now()
    const response = await fetch(process.env.HEALTH_URL)
    await response.text()
    latencies.push(response.status === 200 ? performance.now() - start : Infinity)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  process.send(latencies)
})()
`
