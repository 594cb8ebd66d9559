import t from 'tap'
import * as OTPAuth from 'otpauth'
import { assertError, buildTestApp, eachDialect, type TestApp } from '../../helpers/app.js'
import { addOperator, PASSWORD, signIn, signInRequest } from '../../fixtures/operators.js'
import { resetTotp, SESSION_IDLE_MS, SIGN_IN_WINDOW_MS } from '../../../features/operators/service.js'
import { OPERATOR_SESSION_SWEEP, sweepOperatorSessions } from '../../../features/operators/sweeps.js'

// Console sessions: expiry on the app clock, revocation, the sign-in lockout (also under a burst
// across two instances), TOTP and changing it, exact name matching.

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

  t.test('ended sessions are deleted by the session sweep, not by a sign-in', async (t) => {
    await addOperator(ctx, 'sweepy', 'viewer')
    const sessionsOf = async () =>
      (
        await ctx.app.db
          .selectFrom('operator_sessions as s')
          .innerJoin('operators as o', 'o.id', 's.operator_id')
          .select('s.id')
          .where('o.username', '=', 'sweepy')
          .execute()
      ).length
    await signIn(ctx, 'sweepy')
    ctx.clock.advance(SESSION_IDLE_MS + 1)
    const live = await signIn(ctx, 'sweepy')
    t.equal(await sessionsOf(), 2, 'the idle session stays until the sweep, refused all the same')
    t.ok((await sweepOperatorSessions(ctx.app.db, ctx.clock.now())) >= 1)
    t.equal(await sessionsOf(), 1, 'the idle one is gone')
    t.equal((await live.request({ method: 'GET', url: '/session' })).statusCode, 200, 'the live one works')
    t.ok(ctx.app.jobs.names.includes(OPERATOR_SESSION_SWEEP.name), 'the operators plugin added the job')
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
    const enrolled = await tess.request({
      method: 'POST',
      url: '/session/totp',
      payload: { currentPassword: PASSWORD },
    })
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
      revokedSessions: 1, // the sign-in made before confirming
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
  t.test('lockout under a burst: 100 parallel wrong passwords over two instances, at most 10 checked', async (t) => {
    await addOperator(ctx, 'burst', 'owner')
    // A second instance on the same database (and a fresh pool of connections on MySQL).
    const other = await buildTestApp(t, dialect, { dbEnv: ctx.env, clock: ctx.clock })
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        signInRequest(i % 2 ? other : ctx, { username: 'burst', password: `wrong guess ${i}` }),
      ),
    )
    const codes = answers.map((r) => `${r.statusCode} ${r.json().code}`)
    const checked = codes.filter((c) => c === '401 INVALID_CREDENTIALS').length
    const refused = codes.filter((c) => c === '429 TOO_MANY_ATTEMPTS').length
    t.comment(`${checked} × 401, ${refused} × 429`)
    t.equal(checked, 10, 'exactly 10 guesses reached the password check')
    t.equal(refused, 90, 'every other one was refused before it')
    assertError(t, await signInRequest(other, { username: 'burst', password: PASSWORD }), 429, 'TOO_MANY_ATTEMPTS')
    ctx.clock.advance(SIGN_IN_WINDOW_MS)
    t.equal((await signInRequest(ctx, { username: 'burst', password: PASSWORD })).statusCode, 200, 'free again later')
  })

  t.test('changing the second factor needs the current password and code; other sessions end', async (t) => {
    await addOperator(ctx, 'vera', 'owner')
    const vera = await signIn(ctx, 'vera')
    const begin = (payload?: Record<string, unknown>) =>
      vera.request({ method: 'POST', url: '/session/totp', ...(payload && { payload }) })
    assertError(t, await begin(), 400, 'VALIDATION_ERROR')
    assertError(t, await begin({ currentPassword: 'not my password' }), 401, 'INVALID_CREDENTIALS')
    const first = (await begin({ currentPassword: PASSWORD })).json().secret
    t.equal(
      (await vera.request({ method: 'POST', url: '/session/totp/confirm', payload: { code: totpCode(ctx, first) } }))
        .statusCode,
      200,
    )

    ctx.clock.advance(30_000)
    const elsewhere = await signIn(ctx, 'vera', PASSWORD, totpCode(ctx, first))
    ctx.clock.advance(30_000)
    // The session alone, or the password alone, no longer replaces the factor.
    assertError(t, await begin({ currentPassword: PASSWORD }), 401, 'INVALID_CREDENTIALS')
    assertError(
      t,
      await begin({ currentPassword: PASSWORD, currentCode: totpCode(ctx, first, 20) }),
      401,
      'INVALID_CREDENTIALS',
    )
    assertError(
      t,
      await begin({ currentPassword: 'not my password', currentCode: totpCode(ctx, first) }),
      401,
      'INVALID_CREDENTIALS',
    )
    const codeNow = totpCode(ctx, first)
    const replaced = await begin({ currentPassword: PASSWORD, currentCode: codeNow })
    t.equal(replaced.statusCode, 200, 'the password and a current code start the change')
    const second = replaced.json().secret
    t.not(second, first)
    assertError(t, await begin({ currentPassword: PASSWORD, currentCode: codeNow }), 401, 'INVALID_CREDENTIALS')
    t.equal((await elsewhere.request({ method: 'GET', url: '/session' })).statusCode, 200, 'nothing changed yet')
    const confirmed = await vera.request({
      method: 'POST',
      url: '/session/totp/confirm',
      payload: { code: totpCode(ctx, second) },
    })
    t.same(confirmed.json(), { totpEnabled: true, revokedSessions: 1 })
    assertError(t, await elsewhere.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
    t.equal((await vera.request({ method: 'GET', url: '/session' })).statusCode, 200, 'this session stays')
    const audit = (await ctx.admin({ method: 'GET', url: '/audit?actor=vera&limit=100' })).json().items
    t.match(audit.slice(0, 2), [
      { action: 'POST /session/totp/confirm', status: 200, changes: { code: '[redacted]' } },
      {
        action: 'POST /session/totp',
        status: 200,
        changes: { currentPassword: '[redacted]', currentCode: '[redacted]' },
      },
    ])

    ctx.clock.advance(30_000)
    assertError(
      t,
      await signInRequest(ctx, { username: 'vera', password: PASSWORD, totp: totpCode(ctx, first) }),
      401,
      'INVALID_CREDENTIALS',
    )
    t.equal(
      (await signInRequest(ctx, { username: 'vera', password: PASSWORD, totp: totpCode(ctx, second) })).statusCode,
      200,
      'the new factor signs in',
    )
    // Removal (the command line's reset-totp) ends the operator's sessions too.
    await resetTotp(ctx.app.db, 'vera', ctx.clock.now())
    assertError(t, await vera.request({ method: 'GET', url: '/session' }), 401, 'UNAUTHORIZED')
    t.equal((await signInRequest(ctx, { username: 'vera', password: PASSWORD })).statusCode, 200)
  })

  t.test('wrong current passwords count toward the lockout of the name', async (t) => {
    await addOperator(ctx, 'walt', 'viewer')
    const walt = await signIn(ctx, 'walt')
    for (let i = 0; i < 10; i++) {
      const wrong = { currentPassword: `guess ${i}`, newPassword: 'a brand new password' }
      assertError(
        t,
        await walt.request({ method: 'PUT', url: '/session/password', payload: wrong }),
        401,
        'INVALID_CREDENTIALS',
      )
    }
    assertError(
      t,
      await walt.request({ method: 'POST', url: '/session/totp', payload: { currentPassword: PASSWORD } }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    assertError(t, await signInRequest(ctx, { username: 'walt', password: PASSWORD }), 429, 'TOO_MANY_ATTEMPTS')
  })

  t.test('names match exactly: no accent- or case-folded look-alike signs in', async (t) => {
    await addOperator(ctx, 'owner', 'owner')
    for (const lookalike of ['ownér', 'OWNÉR', 'öwner', 'owner\u200b']) {
      assertError(t, await signInRequest(ctx, { username: lookalike, password: PASSWORD }), 401, 'INVALID_CREDENTIALS')
    }
    t.equal(
      (await signInRequest(ctx, { username: ' Owner ', password: PASSWORD })).statusCode,
      200,
      'case and spaces do not matter',
    )
    assertError(
      t,
      await ctx.admin({
        method: 'POST',
        url: '/operators',
        payload: { username: 'OWNER', password: PASSWORD, role: 'viewer' },
      }),
      409,
      'CONFLICT',
    )
  })
})
