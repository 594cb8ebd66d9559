import t from 'tap'
import * as OTPAuth from 'otpauth'
import { assertError, buildTestApp, eachDialect, type TestApp } from './helpers/app.js'
import { addOperator, PASSWORD, signIn, signInRequest } from './fixtures/operators.js'
import { SESSION_IDLE_MS, SIGN_IN_WINDOW_MS } from '../plugins/operators/service.js'

// Console sessions: expiry on the app clock, revocation, the sign-in lockout and TOTP.

const HOUR = 3600 * 1000

/** A code for `secret` at the app clock's time, as an authenticator app would show it. */
const totpCode = (ctx: TestApp, secret: string, offsetSteps = 0) =>
  new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: ctx.clock.now() + offsetSteps * 30_000,
  })

eachDialect(t, async (t, dialect) => {
  // One app per database, shared: each test has operators of its own (building an app migrates a database).
  const ctx = await buildTestApp(t, dialect)
  t.test('idle and absolute expiry, on the app clock', async (t) => {
    await addOperator(ctx, 'ada', 'viewer')
    const idle = await signIn(ctx, 'ada')
    ctx.clock.advance(SESSION_IDLE_MS - 60_000)
    t.equal((await idle.request({ method: 'GET', url: '/session' })).statusCode, 200, 'used just before 2 h idle')
    ctx.clock.advance(SESSION_IDLE_MS - 60_000)
    t.equal((await idle.request({ method: 'GET', url: '/session' })).statusCode, 200, 'each use restarts the idle time')
    ctx.clock.advance(SESSION_IDLE_MS + 1)
    assertError(t, await idle.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')

    const busy = await signIn(ctx, 'ada')
    for (let hour = 1; hour < 24; hour++) {
      ctx.clock.advance(HOUR)
      if ((await busy.request({ method: 'GET', url: '/session' })).statusCode !== 200) t.fail(`expired at hour ${hour}`)
    }
    ctx.clock.advance(HOUR)
    assertError(t, await busy.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
  })

  t.test('revocation: sign-out, password change, removal, revoke-sessions', async (t) => {
    await addOperator(ctx, 'bob', 'moderator')
    const a = await signIn(ctx, 'bob')
    const out = await a.request({ method: 'DELETE', url: '/session' })
    t.same(out.json(), { signedOut: true })
    t.match(String(out.headers['set-cookie']), /^outpost_session=;.*Expires=Thu, 01 Jan 1970/, 'the cookie is cleared')
    assertError(t, await a.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')

    const b = await signIn(ctx, 'bob')
    const c = await signIn(ctx, 'bob')
    assertError(
      t,
      await b.request({
        method: 'PUT',
        url: '/session/password',
        payload: { currentPassword: 'wrong-one', newPassword: 'a brand new password' },
      }),
      401,
      'INVALID_CREDENTIALS',
    )
    const changed = await b.request({
      method: 'PUT',
      url: '/session/password',
      payload: { currentPassword: PASSWORD, newPassword: 'a brand new password' },
    })
    t.same(changed.json(), { changed: true, revokedSessions: 1 })
    t.equal((await b.request({ method: 'GET', url: '/session' })).statusCode, 200, 'the session that changed it stays')
    assertError(t, await c.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
    assertError(t, await signInRequest(ctx, { username: 'bob', password: PASSWORD }), 401, 'INVALID_CREDENTIALS')
    const d = await signIn(ctx, 'bob', 'a brand new password')

    const revoked = await ctx.admin({ method: 'POST', url: '/operators/bob/revoke-sessions' })
    t.same(revoked.json(), { username: 'bob', revokedSessions: 2 })
    assertError(t, await b.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
    assertError(t, await d.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')

    const e = await signIn(ctx, 'bob', 'a brand new password')
    t.same((await ctx.admin({ method: 'DELETE', url: '/operators/bob' })).json(), { username: 'bob', removed: true })
    assertError(t, await e.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
    assertError(t, await ctx.admin({ method: 'DELETE', url: '/operators/bob' }), 404, 'NOT_FOUND')
  })

  t.test('lockout: 10 failures in 15 minutes for a name, counted in SQL', async (t) => {
    await addOperator(ctx, 'eve', 'viewer')
    for (let i = 0; i < 10; i++) {
      assertError(t, await signInRequest(ctx, { username: 'eve', password: `guess-${i}` }), 401, 'INVALID_CREDENTIALS')
    }
    assertError(t, await signInRequest(ctx, { username: 'EVE', password: PASSWORD }), 429, 'TOO_MANY_ATTEMPTS')
    // Another instance on the same database sees the same count.
    const other = await buildTestApp(t, dialect, { dbEnv: ctx.env, clock: ctx.clock })
    assertError(t, await signInRequest(other, { username: 'eve', password: PASSWORD }), 429, 'TOO_MANY_ATTEMPTS')
    ctx.clock.advance(SIGN_IN_WINDOW_MS)
    t.equal(
      (await signInRequest(ctx, { username: 'eve', password: PASSWORD })).statusCode,
      200,
      'free again 15 minutes on',
    )
  })

  t.test('TOTP: enroll, confirm, sign in with a code; wrong and replayed codes refused', async (t) => {
    await addOperator(ctx, 'tess', 'owner')
    const tess = await signIn(ctx, 'tess')
    const enrolled = await tess.request({ method: 'POST', url: '/session/totp' })
    const { secret, uri } = enrolled.json()
    t.match(secret, /^[A-Z2-7]{32}$/)
    t.match(uri, /^otpauth:\/\/totp\/Outpost:tess\?/)
    t.match(uri, new RegExp(`secret=${secret}`))
    t.equal(
      (await signInRequest(ctx, { username: 'tess', password: PASSWORD })).statusCode,
      200,
      'not active before confirming',
    )

    const wrong = totpCode(ctx, secret, 10)
    assertError(
      t,
      await tess.request({ method: 'POST', url: '/session/totp/confirm', payload: { code: wrong } }),
      400,
      'INVALID_TOTP',
    )
    const code = totpCode(ctx, secret)
    t.same((await tess.request({ method: 'POST', url: '/session/totp/confirm', payload: { code } })).json(), {
      totpEnabled: true,
    })
    t.equal(
      (await ctx.admin({ method: 'GET', url: '/operators' })).json().items.find((o: any) => o.username === 'tess')
        .totpEnabled,
      true,
    )

    assertError(t, await signInRequest(ctx, { username: 'tess', password: PASSWORD }), 401, 'INVALID_CREDENTIALS')
    assertError(
      t,
      await signInRequest(ctx, { username: 'tess', password: PASSWORD, totp: wrong }),
      401,
      'INVALID_CREDENTIALS',
    )
    assertError(
      t,
      await signInRequest(ctx, { username: 'tess', password: PASSWORD, totp: code }),
      401,
      'INVALID_CREDENTIALS',
    )
    ctx.clock.advance(30_000)
    const next = totpCode(ctx, secret)
    t.equal((await signInRequest(ctx, { username: 'tess', password: PASSWORD, totp: next })).statusCode, 200)
    assertError(
      t,
      await signInRequest(ctx, { username: 'tess', password: PASSWORD, totp: next }),
      401,
      'INVALID_CREDENTIALS',
    )
    t.equal(
      (await signInRequest(ctx, { username: 'tess', password: 'wrong password', totp: totpCode(ctx, secret, 1) }))
        .statusCode,
      401,
      'a good code does not make up for a wrong password',
    )
  })
})
