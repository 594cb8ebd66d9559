import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { SIGNIN, createEmailUser } from '../../fixtures/email.js'
import { lockedUntil, tally } from '../../fixtures/lockout.js'

// The players' e-mail sign-in lockout under bursts: only failures count toward a lock, so a burst of
// correct sign-ins all pass, while a burst of wrong ones still gets exactly 10 password checks before
// the lock (15 minutes on the app clock). The operators' side: sign-in-lockout-operators.test.ts.

const MINUTE = 60_000
const BURST = 20

eachDialect(t, async (t, dialect) => {
  t.test(`players: ${BURST} parallel correct e-mail sign-ins all pass and lock nothing`, async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const user = await createEmailUser(ctx)
    const signin = (password: string) =>
      ctx.call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password } })
    const answers = await Promise.all(Array.from({ length: BURST }, () => signin(user.password)))
    const statuses = answers.map((r) => r.statusCode)
    t.same(statuses, Array(BURST).fill(200), tally(statuses))
    t.ok((await lockedUntil(ctx)) <= ctx.clock.now(), 'no lock was set')
    t.equal((await ctx.app.db.selectFrom('login_failures').select('id').execute()).length, 0, 'no failure is kept')
    assertError(t, await signin('a wrong password'), 401, 'INVALID_CREDENTIALS')
    t.equal((await signin(user.password)).statusCode, 200, 'a sign-in right after passes')
  })

  t.test(`players: ${BURST} parallel wrong ones: 10 checked, the rest 429, locked 15 minutes`, async (t) => {
    const ctx = await buildTestApp(t, dialect)
    const user = await createEmailUser(ctx)
    const signin = (password: string) =>
      ctx.call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password } })
    const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => signin(`guess-${i}`)))
    const statuses = answers.map((r) => r.statusCode)
    t.equal(statuses.filter((s) => s === 401).length, 10, `exactly 10 checked: ${tally(statuses)}`)
    t.equal(statuses.filter((s) => s === 429).length, BURST - 10, 'the rest refused before the check')
    t.equal(await lockedUntil(ctx), ctx.clock.now() + 15 * MINUTE, 'locked for 15 minutes')
    ctx.clock.advance(15 * MINUTE - 1)
    assertError(t, await signin(user.password), 429, 'TOO_MANY_ATTEMPTS')
    ctx.clock.advance(1)
    t.equal((await signin(user.password)).statusCode, 200, 'free again after 15 minutes')
  })
})
