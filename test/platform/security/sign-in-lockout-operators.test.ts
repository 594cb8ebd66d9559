import { randomBytes, scryptSync } from 'node:crypto'
import t from 'tap'
import * as OTPAuth from 'otpauth'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { addOperator, PASSWORD, signIn, signInRequest } from '../../fixtures/operators.js'
import { lockedUntil, tally } from '../../fixtures/lockout.js'
import { createOperator } from '../../../features/operators/service.js'

// The operators' sign-in lockout under bursts: only failures count toward a lock, so a burst of
// correct sign-ins all pass, while a burst of wrong ones still gets exactly 10 password checks
// before the lock (15 minutes on the app clock). The player side: sign-in-lockout.test.ts.

const MINUTE = 60_000
const BURST = 20

/** A hash of `password` with small scrypt parameters: the test checks the count, not the hash. */
function quickHash(password: string) {
  const salt = randomBytes(16)
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N: 1024, r: 8, p: 1 })
  return ['scrypt', 1024, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

eachDialect(t, async (t, dialect) => {
  t.test(`operators: ${BURST} parallel correct sign-ins over two instances all pass`, async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const other = await buildTestApp(t, dialect, { dbEnv: ctx.env, clock: ctx.clock })
    await addOperator(ctx, 'ops', 'owner')
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        signInRequest(i % 2 ? other : ctx, { username: 'ops', password: PASSWORD }),
      ),
    )
    const statuses = answers.map((r) => r.statusCode)
    t.same(statuses, Array(BURST).fill(200), tally(statuses))
    t.ok((await lockedUntil(ctx)) <= ctx.clock.now(), 'no lock was set')
    assertError(t, await signInRequest(ctx, { username: 'ops', password: 'not it' }), 401, 'INVALID_CREDENTIALS')
    t.equal((await signInRequest(other, { username: 'ops', password: PASSWORD })).statusCode, 200)
  })

  t.test(`operators: ${BURST} parallel wrong ones: 10 checked, locked 15 minutes`, async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await addOperator(ctx, 'ops', 'owner')
    const answers = await Promise.all(
      Array.from({ length: BURST }, (_, i) => signInRequest(ctx, { username: 'ops', password: `guess-${i}` })),
    )
    const statuses = answers.map((r) => r.statusCode)
    t.equal(statuses.filter((s) => s === 401).length, 10, `exactly 10 checked: ${tally(statuses)}`)
    t.equal(statuses.filter((s) => s === 429).length, BURST - 10)
    ctx.clock.advance(15 * MINUTE - 1)
    assertError(t, await signInRequest(ctx, { username: 'ops', password: PASSWORD }), 429, 'TOO_MANY_ATTEMPTS')
    ctx.clock.advance(1)
    t.equal((await signInRequest(ctx, { username: 'ops', password: PASSWORD })).statusCode, 200, 'free again')
  })

  t.test('operators: wrong current codes at POST /session/totp count toward the lockout', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await createOperator(
      ctx.app.db,
      { username: 'tina', role: 'viewer', passwordHash: quickHash(PASSWORD) },
      ctx.clock.now(),
    )
    const tina = await signIn(ctx, 'tina')
    const begin = (payload: Record<string, unknown>) => tina.request({ method: 'POST', url: '/session/totp', payload })
    const secret = (await begin({ currentPassword: PASSWORD })).json().secret
    const code = (offsetSteps = 0) =>
      new OTPAuth.TOTP({
        secret: OTPAuth.Secret.fromBase32(secret),
        algorithm: 'SHA1',
        digits: 6,
        period: 30,
      }).generate({ timestamp: ctx.clock.now() + offsetSteps * 30_000 })
    const confirm = await tina.request({ method: 'POST', url: '/session/totp/confirm', payload: { code: code() } })
    t.equal(confirm.statusCode, 200)
    ctx.clock.advance(30_000)
    // The right password with no code, or a code far from now: each one is a failure of the name.
    for (let i = 0; i < 10; i++) {
      const payload = i % 2 ? { currentPassword: PASSWORD } : { currentPassword: PASSWORD, currentCode: code(40 + i) }
      assertError(t, await begin(payload), 401, 'INVALID_CREDENTIALS')
    }
    assertError(t, await begin({ currentPassword: PASSWORD, currentCode: code() }), 429, 'TOO_MANY_ATTEMPTS')
    assertError(
      t,
      await signInRequest(ctx, { username: 'tina', password: PASSWORD, totp: code() }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
  })
})
