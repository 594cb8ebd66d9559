import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import { CONSOLE_CSP, CONSOLE_ROOT } from '../../platform/http/console.js'
import { buildTestApp } from '../helpers/app.js'

/**
 * How Outpost serves the browser console: a public surface (no key to load it; the admin API it
 * calls checks the operator), pre-compressed files, index.html never cached, hashed assets cached a
 * year, a CSP that runs only the bundle's own files, relative asset paths for any proxy prefix.
 */

const html = readFileSync(join(CONSOLE_ROOT, 'index.html'), 'utf8')
const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((m) => m[1])

t.test('index.html: no key, no cache, the strict CSP, relative assets, no inline script', async (t) => {
  const { app } = await buildTestApp(t, 'sqlite')
  const res = await app.inject({ method: 'GET', url: '/console/' })
  t.equal(res.statusCode, 200, 'no X-API-Key or X-Admin-Key needed to load the console')
  t.match(res.headers['content-type'], /^text\/html/)
  t.equal(res.headers['cache-control'], 'no-cache')
  t.equal(res.headers['content-security-policy'], CONSOLE_CSP)
  t.match(CONSOLE_CSP, /script-src 'self'(;|$)/, "scripts only from the console's own files")
  t.notMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval/)
  t.match(CONSOLE_CSP, /frame-ancestors 'none'/)
  t.equal(res.headers['x-content-type-options'], 'nosniff')
  t.ok(assets.length >= 2, 'index.html names its script and stylesheet')
  t.ok(
    assets.every((a) => a.startsWith('assets/')),
    'every asset path is relative (works under a proxy prefix)',
  )
  t.notMatch(res.body, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline <script>')
  t.notMatch(res.body, /\sstyle=|<style/, 'no inline style')
  t.notMatch(res.body, /(src|href)="\/(?!\/)/, 'no root-absolute URL')

  const index = await app.inject({ method: 'GET', url: '/console/index.html' })
  t.equal(index.statusCode, 200)
  t.equal(index.headers['cache-control'], 'no-cache')

  const bare = await app.inject({ method: 'GET', url: '/console' })
  t.equal(bare.statusCode, 301, '/console redirects to /console/')
  t.match(bare.headers.location, /\/console\/$/)
})

t.test('hashed assets: cached a year, immutable, sent brotli or gzip as the browser accepts', async (t) => {
  const { app } = await buildTestApp(t, 'sqlite')
  for (const asset of assets) {
    const plain = readFileSync(join(CONSOLE_ROOT, asset))
    t.match(asset, /-[\w-]{8}\.(js|css)$/, `${asset} is named by its content hash`)
    const br = await app.inject({ method: 'GET', url: `/console/${asset}`, headers: { 'accept-encoding': 'br, gzip' } })
    t.equal(br.statusCode, 200)
    t.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable')
    t.equal(br.headers['content-encoding'], 'br', 'brotli when accepted')
    t.match(br.headers.vary, /accept-encoding/i)
    t.ok(brotliDecompressSync(br.rawPayload).equals(plain), 'the brotli file is the asset')
    t.ok(br.rawPayload.length < plain.length, 'and smaller')
    const gz = await app.inject({ method: 'GET', url: `/console/${asset}`, headers: { 'accept-encoding': 'gzip' } })
    t.equal(gz.headers['content-encoding'], 'gzip')
    t.ok(gunzipSync(gz.rawPayload).equals(plain), 'the gzip file is the asset')
    const none = await app.inject({
      method: 'GET',
      url: `/console/${asset}`,
      headers: { 'accept-encoding': 'identity' },
    })
    t.notOk(none.headers['content-encoding'], 'uncompressed for a client that accepts neither')
    t.ok(none.rawPayload.equals(plain))
    t.match(none.headers['content-type'], asset.endsWith('.js') ? /javascript/ : /text\/css/)
  }
  const missing = await app.inject({ method: 'GET', url: '/console/assets/nope-12345678.js' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().code, 'NOT_FOUND', 'a missing file is the house 404')
})

t.test('first load within 100 KB compressed; every page is its own chunk', async (t) => {
  const brotli = (file: string) => statSync(join(CONSOLE_ROOT, `${file}.br`)).size
  const firstLoad = brotli('index.html') + assets.reduce((sum, a) => sum + brotli(a), 0)
  t.ok(firstLoad <= 100 * 1024, `first load ${firstLoad} bytes (brotli) ≤ 100 KB`)
  const chunks = readdirSync(join(CONSOLE_ROOT, 'assets')).filter((f) => f.endsWith('.js'))
  for (const page of ['overview', 'players', 'player', 'leaderboards', 'runs', 'remote-config', 'gift-codes']) {
    t.ok(
      chunks.some((f) => f.startsWith(`${page}-`)),
      `the ${page} page loads as its own chunk`,
    )
  }
  const entry = readFileSync(
    join(
      CONSOLE_ROOT,
      assets.find((a) => a.endsWith('.js'))!,
    ),
    'utf8',
  )
  t.notMatch(entry, /New leaderboard/, "a page's code is not in the first load")
})

t.test('CONSOLE_ENABLED=false: /console/ is a 404', async (t) => {
  const { app } = await buildTestApp(t, 'sqlite', { env: { CONSOLE_ENABLED: 'false' } })
  const res = await app.inject({ method: 'GET', url: '/console/' })
  t.equal(res.statusCode, 404)
  t.equal(res.json().code, 'NOT_FOUND')
})

t.test('the console routes are a public surface: no key, not under the per-IP limit', async (t) => {
  const { app } = await buildTestApp(t, 'sqlite', { env: { RATE_LIMIT_ENABLED: 'true', RATE_LIMIT_PER_SECOND: '1' } })
  t.ok(app.hasRoute({ method: 'GET', url: '/console' }), 'the page route')
  t.ok(app.hasRoute({ method: 'GET', url: '/console/*' }), 'the files route')
  // Several loads in a row: the players' per-IP limit on /api/v1 does not apply to the console files.
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ method: 'GET', url: '/console/' })).statusCode, 200)
  const admin = await app.inject({ method: 'GET', url: '/api/v1/admin/users' })
  t.equal(admin.statusCode, 401, 'while the admin API it calls still wants a credential')
})
