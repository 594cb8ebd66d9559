import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { API_KEY, APP, buildTestApp, eachDialect } from '../helpers/app.js'
import { chromiumSkip, launchChromium } from '../helpers/browser.js'
import { createUser } from '../fixtures/users.js'

/**
 * A Unity WebGL build is a page on the game's own origin calling Outpost on another: the browser
 * sends a CORS preflight first, and refuses the request when a header it carries (If-Match, the
 * conditional cloud save) is not allowed, and hides every response header not exposed. Here a
 * real chromium does the conditional saves and loads the Unity SDK does, from a second origin.
 */

interface Answer {
  status: number
  revision: string | null
  body: Record<string, unknown> | null
}

eachDialect(t, async (t, dialect) => {
  t.test('conditional cloud save from another origin', { skip: chromiumSkip, timeout: 120_000 }, async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const api = (await ctx.app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1')
    const game = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      response.end('<!doctype html><title>game</title><p>WebGL build</p>')
    })
    await new Promise<void>((resolve) => game.listen(0, '127.0.0.1', resolve))
    t.teardown(() => new Promise<void>((resolve) => game.close(() => resolve())))
    const gameOrigin = `http://127.0.0.1:${(game.address() as AddressInfo).port}`
    t.not(new URL(api).origin, gameOrigin, 'two origins')

    const browser = await launchChromium()
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    await page.goto(`${gameOrigin}/`)
    const user = await createUser(ctx)

    /** What UnityWebRequest does in WebGL: fetch with the SDK's headers, then read the revision header. */
    const call = (path: string, headers: Record<string, string>, body: unknown): Promise<Answer> =>
      page.evaluate(
        async ({ url, headers, body }) => {
          const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })
          const text = await response.text()
          return {
            status: response.status,
            revision: response.headers.get('X-Cloud-Save-Revision'),
            body: text ? (JSON.parse(text) as Record<string, unknown>) : null,
          }
        },
        { url: `${api}${APP}${path}`, headers, body },
      )
    const sdkHeaders = {
      'Content-Type': 'application/json',
      'X-API-Key': API_KEY,
      Authorization: `Bearer ${user.accessToken}`,
    }

    const empty = await call('/cloud-save/load', sdkHeaders, { userId: user.userId })
    t.same([empty.status, empty.revision, empty.body?.found], [200, '0', false], 'LoadSnapshot: revision 0')
    const saved = await call(
      '/cloud-save/save',
      { ...sdkHeaders, 'If-Match': '0' },
      { userId: user.userId, saveData: '{"level":1}' },
    )
    t.equal(saved.status, 200, 'Save(data, 0) passes the preflight')
    t.equal(saved.revision, '1', 'X-Cloud-Save-Revision readable from JS')
    t.equal(saved.body?.revision, 1)
    const stale = await call(
      '/cloud-save/save',
      { ...sdkHeaders, 'If-Match': '0' },
      { userId: user.userId, saveData: '{"level":9}' },
    )
    t.same(
      [stale.status, stale.body?.code, stale.body?.currentVersion],
      [409, 'CONFLICT', 1],
      'a conflict, not a network error',
    )
    const loaded = await call('/cloud-save/load', sdkHeaders, { userId: user.userId })
    t.same([loaded.status, loaded.revision, loaded.body?.saveData], [200, '1', '{"level":1}'])
  })
})
