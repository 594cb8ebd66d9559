import t from 'tap'
import { ADMIN_KEY, API_KEY, APP, assertError, eachDialect } from '../helpers/app.js'
import { rawRequest } from '../helpers/raw-http.js'
import { startSmtp } from '../helpers/smtp.js'
import { createEmailUser, emailApp, emailRow, putTemplate } from '../fixtures/email.js'
import { bearer, createUser } from '../fixtures/users.js'
import { createGiftCode } from '../fixtures/gift-codes.js'
import { createCosmetic } from '../fixtures/player-profile.js'
import { LOG_BASE64, evidencePath, putRules, startRun } from '../fixtures/validated-actions.js'

/**
 * What the 1.9 SDKs (Unity, Godot, Unreal) send, replayed as they send it: the same headers, the
 * same JSON text, over a real socket where the path or the CORS headers matter (issue 36).
 */

const MINUTE = 60_000
/** The headers every SDK sends on a JSON request: the key and the JSON content type. */
const SDK_JSON = { 'content-type': 'application/json', 'x-api-key': API_KEY }
const ALLOWED = [
  'content-type',
  'authorization',
  'x-api-key',
  'x-admin-key',
  'if-match',
  'if-none-match',
  'accept',
  'x-request-id',
  'x-requested-with',
]
const EXPOSED = [
  'x-cloud-save-revision',
  'etag',
  'retry-after',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]
const list = (header: string | string[] | undefined) =>
  String(header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean)

eachDialect(t, async (t, dialect) => {
  const smtp = await startSmtp(t)
  const ctx = await emailApp(t, dialect, smtp.url, { env: { EMAIL_MAX_PER_USER_PER_HOUR: '2' } })
  const { app, call, admin, clock } = ctx
  const base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }))

  t.test('CORS: a WebGL game on another origin may send If-Match, and reads the headers it needs', async (t) => {
    const preflight = await rawRequest(base, 'OPTIONS', `${APP}/cloud-save/save`, {
      origin: 'http://game.example:8000',
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'if-match,x-api-key,content-type',
    })
    t.equal(preflight.status, 204, 'answered without an API key')
    t.equal(preflight.headers['access-control-allow-origin'], '*')
    t.ok(list(preflight.headers['access-control-allow-methods']).includes('put'))
    const allowed = list(preflight.headers['access-control-allow-headers'])
    t.same(
      ALLOWED.filter((name) => !allowed.includes(name)),
      [],
      'every request header of contract §1 is allowed',
    )
    const user = await createUser(ctx)
    const save = await rawRequest(
      base,
      'POST',
      `${APP}/cloud-save/save`,
      { ...SDK_JSON, ...bearer(user), 'if-match': '0', origin: 'http://game.example:8000' },
      JSON.stringify({ userId: user.userId, saveData: '{"level":2}' }),
    )
    t.equal(save.status, 200)
    t.equal(save.headers['x-cloud-save-revision'], '1')
    const exposed = list(save.headers['access-control-expose-headers'])
    t.same(
      EXPOSED.filter((name) => !exposed.includes(name)),
      [],
      'every response header of contract §1 is exposed',
    )
  })

  t.test('TOO_MANY_ATTEMPTS on the app API: the wait in the body, no Retry-After to wait out', async (t) => {
    const user = await createEmailUser(ctx)
    // Unity's SignInEmail body (empty fields left out by its JSON writer).
    const signIn = (password: string) =>
      call({
        method: 'POST',
        url: '/user-management/signin',
        headers: SDK_JSON,
        payload: JSON.stringify({ type: 'EMAIL', email: user.email, password }),
      })
    for (let i = 1; i <= 10; i++) t.equal((await signIn(`guess-${i}`)).statusCode, 401, `attempt ${i}`)
    const locked = await signIn(user.password)
    const body = assertError(t, locked, 429, 'TOO_MANY_ATTEMPTS')
    t.equal(body.retryAfterSeconds, 900, 'retryAfterSeconds: 15 minutes')
    t.equal(body.authStatus, 'TOO_MANY_ATTEMPTS')
    t.equal(locked.headers['retry-after'], undefined, 'no Retry-After header')
    clock.advance(5 * MINUTE)
    t.equal((await signIn(user.password)).json().retryAfterSeconds, 600, 'the wait counts down')
    clock.advance(10 * MINUTE)
    t.equal((await signIn(user.password)).statusCode, 200)
  })

  t.test('EMAIL_QUOTA_EXCEEDED: retryAfterSeconds until a send is allowed, no Retry-After', async (t) => {
    await putTemplate(ctx, 'sdk-quota')
    const user = await createEmailUser(ctx)
    const send = () =>
      call({
        method: 'POST',
        url: '/email-sending/send',
        headers: SDK_JSON,
        payload: JSON.stringify({
          userId: user.userId,
          templateSlug: 'sdk-quota',
          language: 'en',
          variables: { prize: 'a cup' },
        }),
      })
    t.equal((await send()).statusCode, 201)
    clock.advance(10 * MINUTE)
    t.equal((await send()).statusCode, 201)
    clock.advance(5 * MINUTE)
    const refused = await send()
    const body = assertError(t, refused, 429, 'EMAIL_QUOTA_EXCEEDED')
    t.equal(body.retryAfterSeconds, 45 * 60, 'until the first send of the hour ages out')
    t.equal(refused.headers['retry-after'], undefined, 'no Retry-After header')
  })

  t.test('RUN_RATE_LIMITED keeps its Retry-After (the SDKs do not retry it)', async (t) => {
    await putRules(ctx, '_unbound', { maxRunsPerHour: 1 })
    const user = await createUser(ctx)
    t.equal((await startRun(ctx, user)).statusCode, 200)
    const limited = await startRun(ctx, user)
    const body = assertError(t, limited, 429, 'RUN_RATE_LIMITED')
    t.equal(limited.headers['retry-after'], '3600')
    t.equal(body.retryAfterSeconds, 3600)
    await putRules(ctx, '_unbound', {})
  })

  t.test('e-mail variables sent as null (Unity 1.9) are empty strings', async (t) => {
    await putTemplate(ctx, 'sdk-nulls', {
      variables: { nil: 'fallback', empty: 'fallback' },
      translations: { en: { subject: 'News [{{nil}}]', html: '<p>[{{nil}}][{{empty}}]</p>', text: '[{{nil}}]' } },
    })
    const user = await createEmailUser(ctx)
    const res = await call({
      method: 'POST',
      url: '/email-sending/send',
      headers: SDK_JSON,
      payload: `{"userId":"${user.userId}","templateSlug":"sdk-nulls","language":"en","variables":{"nil":null,"empty":""}}`,
    })
    t.equal(res.statusCode, 201, res.body)
    const row = await emailRow(ctx, res.json().id)
    t.same([row.subject, row.html, row.text_body], ['News []', '<p>[][]</p>', '[]'], 'null counts as ""')
    const preview = await admin({
      method: 'POST',
      url: '/email-templates/sdk-nulls/preview',
      payload: { language: 'en', variables: { nil: null } },
    })
    assertError(t, preview, 400, 'VALIDATION_ERROR')
  })

  t.test('gift codes: grantedUnlocks lists the grants the player owns after the redemption', async (t) => {
    await createCosmetic(ctx, 'sdk-crown', 'badge', true)
    await createCosmetic(ctx, 'sdk-star', 'badge', true)
    const user = await createUser(ctx)
    const grant = await admin({ method: 'POST', url: `/users/${user.userId}/unlocks`, payload: { ids: ['sdk-crown'] } })
    t.equal(grant.statusCode, 200)
    await createGiftCode(ctx, { code: 'SDK-CROWN', grants: ['sdk-crown'] })
    await createGiftCode(ctx, { code: 'SDK-BOTH', grants: ['sdk-star', 'sdk-crown'] })
    const redeem = (code: string) =>
      call({
        method: 'POST',
        url: '/gift-codes/redeem',
        headers: { ...SDK_JSON, ...bearer(user) },
        payload: JSON.stringify({ code, userId: user.userId }),
      })
    const owned = await redeem('sdk-crown')
    t.same(owned.json(), {
      success: true,
      message: 'Gift code redeemed successfully',
      giftData: '{"coins":100}',
      grantedUnlocks: ['sdk-crown'],
    })
    t.same((await redeem('sdk-both')).json().grantedUnlocks, ['sdk-crown', 'sdk-star'], 'owned before and new')
    const unlocks = (await admin({ method: 'GET', url: `/users/${user.userId}/unlocks` })).json().unlocks
    t.same(unlocks, ['sdk-crown', 'sdk-star'], 'each granted once')
  })

  t.test(
    'evidence for a run id that is not a UUID: 404 EVIDENCE_NOT_REQUESTED, after key, body and session',
    async (t) => {
      const user = await createUser(ctx)
      const upload = (headers: Record<string, string>, payload: string) =>
        call({ method: 'PUT', url: evidencePath('run-unknown'), headers: { ...SDK_JSON, ...headers }, payload })
      const body = JSON.stringify({ userId: user.userId, log: LOG_BASE64 })
      const unknown = assertError(t, await upload(bearer(user), body), 404, 'EVIDENCE_NOT_REQUESTED')
      t.equal(unknown.runId, 'run-unknown')
      assertError(t, await upload({}, body), 401, 'SESSION_REQUIRED')
      assertError(t, await upload(bearer(user), JSON.stringify({ userId: user.userId })), 400, 'VALIDATION_ERROR')
      const noKey = await app.inject({
        method: 'PUT',
        url: `${APP}${evidencePath('run-unknown')}`,
        headers: { 'content-type': 'application/json', ...bearer(user) },
        payload: body,
      })
      assertError(t, noKey, 401, 'UNAUTHORIZED')
      const upper = `${'A'.repeat(8)}-AAAA-4AAA-8AAA-${'A'.repeat(12)}`
      assertError(t, await upload(bearer(user), body.replace('run-unknown', upper)), 404, 'EVIDENCE_NOT_REQUESTED')
    },
  )

  t.test('a server URL with a trailing slash: //api/v1/... is served, keys still checked', async (t) => {
    const health = await rawRequest(base, 'GET', '//health')
    t.equal(health.status, 200)
    t.equal(JSON.parse(health.text).status, 'ok')
    const actuator = await rawRequest(base, 'GET', '//actuator/health', { 'x-api-key': API_KEY })
    t.equal(actuator.status, 200)
    t.match(actuator.text, '"status":"UP"')
    for (const target of [`/${APP}/remote-config/all`, `${APP.replace('/v1', '//v1')}/remote-config/all`]) {
      const bare = await rawRequest(base, 'GET', target)
      t.same([bare.status, JSON.parse(bare.text).code], [401, 'UNAUTHORIZED'], `${target} without a key`)
      const keyed = await rawRequest(base, 'GET', target, { 'x-api-key': API_KEY })
      t.equal(keyed.status, 200, `${target} with the key`)
      t.same(Object.keys(JSON.parse(keyed.text)).sort(), ['configs', 'total'])
    }
    const signUp = await rawRequest(
      base,
      'POST',
      `/${APP}/user-management/signup`,
      SDK_JSON,
      JSON.stringify({ type: 'ANONYMOUS', username: 'slashy' }),
    )
    t.equal(signUp.status, 201, 'a write through // works')
    const adminBare = await rawRequest(base, 'GET', '//api/v1/admin/users')
    t.equal(adminBare.status, 401)
    t.equal((await rawRequest(base, 'GET', '//api/v1/admin/users', { 'x-api-key': API_KEY })).status, 401)
    t.equal((await rawRequest(base, 'GET', '//api/v1/admin/users', { 'x-admin-key': ADMIN_KEY })).status, 200)
  })
})
