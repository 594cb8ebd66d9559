import { randomUUID } from 'node:crypto'
import t from 'tap'
import { ADMIN, ADMIN_KEY, APP, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { addGame, setSettings } from '../../helpers/second-game.js'
import { parsePrometheus, valueOf } from '../../helpers/prometheus.js'

// Each game's settings take effect on its own requests (contract §14): the auth mode, the browser
// origins, and the game label on the metrics. The rate limit per game is in
// test/platform/security/rate-limit-games.test.ts, the providers' audiences in
// test/features/authentication/social-signin-games.test.ts.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, { env: { CORS_ORIGINS: 'https://default.example' } })
  const { app, call } = ctx
  await app.ready()
  const b = await addGame(ctx, 'b', { settings: { authMode: 'strict', corsOrigins: ['https://b.example'] } })

  t.test('auth mode: strict in game b, compat in default, per request', async (t) => {
    const signUp = async (send: typeof call) =>
      (await send({ method: 'POST', url: '/user-management/signup', payload: {} })).json() as {
        userId: string
        accessToken: string
      }
    const ofDefault = await signUp(call)
    const ofB = await signUp(b.call)
    const scoped = (send: typeof call, userId: string, headers: Record<string, string> = {}) =>
      send({ method: 'POST', url: '/__test/user-scoped', payload: { userId }, headers })

    t.equal((await scoped(call, ofDefault.userId)).statusCode, 200, 'default (compat): userId alone')
    assertError(t, await scoped(b.call, ofB.userId), 401, 'SESSION_REQUIRED')
    const withSession = await scoped(b.call, ofB.userId, bearer(ofB.accessToken))
    t.equal(withSession.statusCode, 200, 'game b (strict): its own session passes')
    t.equal(withSession.json().sessionId !== null, true)

    // E-mail status and cancel: a session in strict mode only.
    const email = `/email-sending/${randomUUID()}`
    assertError(t, await call({ method: 'GET', url: email }), 404, 'EMAIL_NOT_FOUND')
    assertError(t, await b.call({ method: 'GET', url: email }), 401, 'SESSION_REQUIRED')

    // A game's change holds on its next request, and only for it.
    await setSettings(ctx, 'b', { authMode: 'compat', corsOrigins: ['https://b.example'] })
    t.equal((await scoped(b.call, ofB.userId)).statusCode, 200, 'game b, back to compat')
    await setSettings(ctx, 'b', { authMode: 'strict', corsOrigins: ['https://b.example'] })
    assertError(t, await scoped(b.call, ofB.userId), 401, 'SESSION_REQUIRED')
    t.equal((await scoped(call, ofDefault.userId)).statusCode, 200, 'default untouched')
  })

  t.test('CORS: the union of the games at preflight, the request’s game on the request', async (t) => {
    const preflight = (origin: string) =>
      app.inject({
        method: 'OPTIONS',
        url: `${APP}/news`,
        headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' },
      })
    for (const origin of ['https://default.example', 'https://b.example']) {
      const answer = await preflight(origin)
      t.equal(answer.statusCode, 204, `preflight from ${origin}`)
      t.equal(answer.headers['access-control-allow-origin'], origin, 'some game allows it')
      t.match(answer.headers['access-control-allow-headers'], /X-API-Key/)
      t.match(answer.headers.vary, /Origin/)
    }
    const stranger = await preflight('https://evil.example')
    t.equal(stranger.statusCode, 204)
    t.equal(stranger.headers['access-control-allow-origin'], undefined, 'no game allows it')

    const news = (send: typeof call, origin: string) => send({ method: 'GET', url: '/news', headers: { origin } })
    t.equal((await news(b.call, 'https://b.example')).headers['access-control-allow-origin'], 'https://b.example')
    const crossed = await news(b.call, 'https://default.example')
    t.equal(crossed.statusCode, 200)
    t.equal(crossed.headers['access-control-allow-origin'], undefined, "game b does not allow default's origin")
    t.match(crossed.headers.vary, /Origin/)
    t.match(crossed.headers['access-control-expose-headers'], /X-Request-Id/)
    t.equal(
      (await news(call, 'https://default.example')).headers['access-control-allow-origin'],
      'https://default.example',
    )
    t.equal((await news(call, 'https://b.example')).headers['access-control-allow-origin'], undefined)
    const native = await b.call({ method: 'GET', url: '/news' })
    t.equal(native.headers['access-control-allow-origin'], undefined, 'no Origin, nothing to allow')
    t.match(native.headers.vary, /Origin/)

    const unknownKey = await app.inject({
      method: 'GET',
      url: `${APP}/news`,
      headers: { origin: 'https://b.example', 'x-api-key': 'not-a-key' },
    })
    assertError(t, unknownKey, 401, 'UNAUTHORIZED')
    t.equal(unknownKey.headers['access-control-allow-origin'], 'https://b.example', 'the browser can read the 401')

    const admin = (path: string, origin: string) =>
      app.inject({ method: 'GET', url: `${ADMIN}${path}`, headers: { origin, 'x-admin-key': ADMIN_KEY } })
    t.equal(
      (await admin('/games/b/users', 'https://b.example')).headers['access-control-allow-origin'],
      'https://b.example',
    )
    t.equal(
      (await admin('/games/b/users', 'https://default.example')).headers['access-control-allow-origin'],
      undefined,
    )
    t.equal(
      (await admin('/users', 'https://default.example')).headers['access-control-allow-origin'],
      'https://default.example',
    )

    // A game that allows any origin: every preflight is allowed, its own requests too, default's not.
    await setSettings(ctx, 'b', { authMode: 'strict', corsOrigins: ['*'] })
    t.equal((await preflight('https://evil.example')).headers['access-control-allow-origin'], '*')
    t.equal((await news(b.call, 'https://evil.example')).headers['access-control-allow-origin'], '*')
    t.equal((await news(call, 'https://evil.example')).headers['access-control-allow-origin'], undefined)
    await setSettings(ctx, 'b', { authMode: 'strict', corsOrigins: ['https://b.example'] })
  })

  t.test('metrics: the per-game families carry the game', async (t) => {
    const text = async () => (await app.inject({ method: 'GET', url: '/metrics', remoteAddress: '127.0.0.1' })).body
    const before = parsePrometheus(await text())
    t.equal(valueOf(before, 'outpost_score_submits_total', { game: 'b' }), 0, "game b's series from the start")
    t.equal(valueOf(before, 'outpost_signups_total', { kind: 'email', game: 'b' }), 0)
    const news = { route: `${APP}/news`, method: 'GET', status: '200' }
    const signup = { kind: 'anonymous' }
    const delta = (after: typeof before, name: string, labels: Record<string, string>) =>
      (valueOf(after, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0)

    await b.call({ method: 'POST', url: '/user-management/signup', payload: {} })
    await b.call({ method: 'GET', url: '/news' })
    await b.call({ method: 'GET', url: '/news' })
    await call({ method: 'GET', url: '/news' })
    const unknown = await app.inject({ method: 'GET', url: `${APP}/news`, headers: { 'x-api-key': 'nope' } })
    t.equal(unknown.statusCode, 401)
    const raw = await text()
    const after = parsePrometheus(raw)
    t.equal(delta(after, 'http_requests_total', { ...news, game: 'b' }), 2, 'game="b" on its requests')
    t.equal(delta(after, 'http_requests_total', { ...news, game: 'default' }), 1, "default's apart")
    t.equal(delta(after, 'http_request_duration_seconds_count', { ...news, game: 'b' }), 2, 'and on the latency')
    t.equal(delta(after, 'outpost_signups_total', { ...signup, game: 'b' }), 1, 'sign-ups by game')
    t.equal(delta(after, 'outpost_signups_total', { ...signup, game: 'default' }), 0)
    t.equal(
      delta(after, 'http_requests_total', { ...news, status: '401', game: '' }),
      1,
      'a request no game was named for: game=""',
    )
    t.match(raw, /^http_requests_total\{route="\/api\/v1\/app\/news",method="GET",status="200",game="b"\} \d+$/m)
    t.match(raw, /^outpost_rate_limit_rejections_total\{limit="player",game="b"\} 0$/m)
    t.match(raw, /^(process|nodejs)_/m, 'the process families are there')
    t.notMatch(raw, /^(process|nodejs|outpost_db)_[^\n]*game=/m, 'and, with the database ones, stay unlabelled')
  })
})
