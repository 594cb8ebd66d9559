import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { FORGOT, RESET, SIGNIN, createEmailUser, setUpEmailAccounts, tokenIn } from '../../fixtures/email.js'
import { bearer } from '../../fixtures/users.js'

eachDialect(t, async (t, dialect) => {
  const { ctx, deliver, mailTo } = await setUpEmailAccounts(t, dialect)
  const { call, app, clock } = ctx

  t.test('forgot → reset mail → reset: old sessions refused, new password works', async (t) => {
    const user = await createEmailUser(ctx)
    const second = (
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: user.password },
      })
    ).json()
    await deliver()
    const forgot = await call({ method: 'POST', url: FORGOT, payload: { email: user.email.toUpperCase() } })
    t.equal(forgot.statusCode, 200)
    t.match(forgot.json(), { success: true, message: /reset/ })
    const nobody = await call({ method: 'POST', url: FORGOT, payload: { email: 'nobody-at-all@example.org' } })
    t.same(nobody.json(), forgot.json(), 'same answer for an unknown address')
    t.same(
      await deliver(),
      { released: 0, claimed: 1, sent: 1, retried: 0, failed: 0 },
      'one mail: none for the unknown address',
    )
    const mail = mailTo(user.email).find((m) => m.subject === 'Reset your password')!
    t.ok(mail, 'the reset mail arrived')
    t.match(mail.text, /https:\/\/play\.example\.org\/reset-password\?token=/)
    const token = tokenIn(mail.text)!

    assertError(
      t,
      await call({ method: 'POST', url: RESET, payload: { token, newPassword: 'short' } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: RESET, payload: { token: 'bogus', newPassword: 'a-new-password' } }),
      400,
      'INVALID_TOKEN',
    )
    const reset = await call({ method: 'POST', url: RESET, payload: { token, newPassword: 'a-new-password' } })
    t.equal(reset.statusCode, 200, 'the short password did not spend the token')
    t.match(reset.json(), { success: true })
    for (const session of [user, second]) {
      assertError(
        t,
        await call({
          method: 'POST',
          url: '/user-management/signout',
          headers: bearer(session),
          payload: { userId: user.userId },
        }),
        401,
        'SESSION_REQUIRED',
      )
    }
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: user.password },
      }),
      401,
      'INVALID_CREDENTIALS',
    )
    const fresh = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: 'a-new-password' },
    })
    t.equal(fresh.statusCode, 200)
    t.equal(fresh.json().isVerified, true, 'reading the reset mail proves the address')
    assertError(
      t,
      await call({ method: 'POST', url: RESET, payload: { token, newPassword: 'yet-another-one' } }),
      400,
      'INVALID_TOKEN',
    )
  })

  t.test('reset tokens expire after an hour; a reset lifts a lockout; resets per hour are capped', async (t) => {
    const user = await createEmailUser(ctx)
    await call({ method: 'POST', url: FORGOT, payload: { email: user.email } })
    clock.advance(3600_001)
    await call({ method: 'POST', url: FORGOT, payload: { email: user.email } })
    const tokens = await app.db
      .selectFrom('account_tokens')
      .select(['expires_at', 'created_at'])
      .where('user_id', '=', user.userId)
      .where('purpose', '=', 'reset')
      .execute()
    t.equal(tokens.length, 2)
    await deliver()
    const mails = mailTo(user.email).filter((m) => m.subject === 'Reset your password')
    t.equal(mails.length, 2)
    assertError(
      t,
      await call({
        method: 'POST',
        url: RESET,
        payload: { token: tokenIn(mails[0]!.text), newPassword: 'password-two' },
      }),
      400,
      'INVALID_TOKEN',
    )
    for (let i = 0; i < 10; i++)
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password: 'bad-guess' } })
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: user.password },
      }),
      429,
      'TOO_MANY_ATTEMPTS',
    )
    t.equal(
      (
        await call({
          method: 'POST',
          url: RESET,
          payload: { token: tokenIn(mails[1]!.text), newPassword: 'password-two' },
        })
      ).statusCode,
      200,
    )
    t.equal(
      (
        await call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'EMAIL', email: user.email, password: 'password-two' },
        })
      ).statusCode,
      200,
    )
    for (let i = 0; i < 8; i++) await call({ method: 'POST', url: FORGOT, payload: { email: user.email } })
    const lastHour = await app.db
      .selectFrom('account_tokens')
      .select('id')
      .where('user_id', '=', user.userId)
      .where('purpose', '=', 'reset')
      .where('created_at', '>', clock.now() - 3600_000)
      .execute()
    t.equal(lastHour.length, 5, 'at most 5 reset mails per account per hour')
    assertError(t, await call({ method: 'POST', url: FORGOT, payload: {} }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'POST', url: RESET, payload: { token: 'x' } }), 400, 'VALIDATION_ERROR')
  })
})
