import t from 'tap'
import { assertError, buildTestApp, eachDialect, withProductionHashes } from '../../helpers/app.js'
import {
  FORGOT,
  SIGNIN,
  SIGNUP,
  VERIFY,
  createEmailUser,
  emailRow,
  putTemplate,
  setUpEmailAccounts,
  tokenIn,
} from '../../fixtures/email.js'
import { createUser } from '../../fixtures/users.js'

eachDialect(t, async (t, dialect) => {
  const { smtp, ctx, deliver, mailTo } = await setUpEmailAccounts(t, dialect)
  const { call, app, clock } = ctx

  t.test('Unity-style e-mail sign-up, verification mail, verify, isVerified', async (t) => {
    // The hash the server stores: at production strength here, the suite's own being cheaper (helpers/app.ts).
    withProductionHashes(t)
    // The Unity SDK serializes every field of SignUpRequest; unset strings arrive empty.
    const res = await call({
      method: 'POST',
      url: SIGNUP,
      payload: {
        type: 'EMAIL',
        username: '',
        email: 'Ada.Lovelace@Example.org',
        password: 'analytical-engine',
        anonymousToken: '',
        googleAuthorizationCode: '',
        googleRedirectUri: '',
      },
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.match(body, {
      email: 'Ada.Lovelace@Example.org',
      isAnonymous: false,
      isVerified: false,
      anonymousToken: null,
      authStatus: 'AUTHENTICATED',
    })
    t.match(body.username, /^Player-\d{4}$/)
    const stored = await app.db.selectFrom('users').selectAll().where('id', '=', body.userId).executeTakeFirstOrThrow()
    t.match(
      stored.password_hash,
      /^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/,
      'a salted scrypt hash at OWASP strength, with its parameters',
    )
    t.notMatch(stored.password_hash, /analytical/)
    t.equal(stored.email_key, 'ada.lovelace@example.org')

    t.same(await deliver(), { released: 0, claimed: 1, sent: 1, retried: 0, failed: 0 })
    const [mail] = mailTo('Ada.Lovelace@Example.org')
    t.ok(mail, 'the verification mail arrived')
    t.equal(mail!.subject, 'Confirm your e-mail address')
    t.match(mail!.text, /https:\/\/play\.example\.org\/verify-email\?token=/, 'link built from PUBLIC_URL')
    const token = tokenIn(mail!.text)!
    t.ok(token)
    t.match(mail!.html, `href="https://play.example.org/verify-email?token=${token}"`)
    const tokens = await app.db.selectFrom('account_tokens').selectAll().where('user_id', '=', body.userId).execute()
    t.equal(tokens.length, 1)
    t.not(tokens[0]!.token_hash, token, 'the token is stored hashed')
    const queued = await app.db
      .selectFrom('emails')
      .selectAll()
      .where('user_id', '=', body.userId)
      .executeTakeFirstOrThrow()
    t.equal(queued.html, null, 'the sent account mail no longer holds the token')
    t.equal(queued.is_account, 1)

    const verified = await call({ method: 'POST', url: VERIFY, payload: { token } })
    t.equal(verified.statusCode, 200)
    t.same(verified.json(), { success: true, message: 'E-mail verified' })
    const signin = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: 'ada.lovelace@example.org', password: 'analytical-engine' },
    })
    t.equal(signin.statusCode, 200)
    t.match(signin.json(), { userId: body.userId, isVerified: true, email: 'Ada.Lovelace@Example.org' })
    assertError(t, await call({ method: 'POST', url: VERIFY, payload: { token } }), 400, 'INVALID_TOKEN')
    assertError(t, await call({ method: 'POST', url: VERIFY, payload: { token: 'not-a-token' } }), 400, 'INVALID_TOKEN')
    assertError(t, await call({ method: 'POST', url: VERIFY, payload: {} }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'POST', url: VERIFY, payload: { token: 42 } }), 400, 'VALIDATION_ERROR')
  })

  t.test(
    'account e-mails keep no token once sent, failed for good or cancelled; other e-mails keep their body',
    async (t) => {
      const rowsOf = (userId: string) =>
        app.db.selectFrom('emails').selectAll().where('user_id', '=', userId).orderBy('created_at').execute()
      const sent = await createEmailUser(ctx)
      t.match(
        JSON.stringify(await rowsOf(sent.userId)),
        /verify-email\?token=/,
        'queued: the body holds the link until it is sent',
      )
      await deliver()
      await call({ method: 'POST', url: FORGOT, payload: { email: sent.email } })
      await deliver()
      const received = mailTo(sent.email)
      t.equal(received.length, 2, 'the verification and the reset mail arrived')
      const rows = await rowsOf(sent.userId)
      t.same(
        rows.map((r) => r.status),
        ['sent', 'sent'],
      )
      for (const [i, mail] of received.entries()) {
        const token = tokenIn(mail.text)!
        t.ok(token, `mail ${i + 1}: the SMTP server got the token`)
        t.notMatch(JSON.stringify(rows), token, `mail ${i + 1}: the row does not hold the token`)
      }
      t.same(
        rows.map((r) => [r.html, r.text_body]),
        [
          [null, null],
          [null, null],
        ],
      )
      t.same(
        rows.map((r) => r.subject).sort(),
        ['Confirm your e-mail address', 'Reset your password'],
        'the subject stays for the operator',
      )

      const refused = await createEmailUser(ctx)
      smtp.refuseNext(1, 550, 'No such mailbox')
      t.equal((await deliver()).failed, 1)
      const [failed] = await rowsOf(refused.userId)
      t.match(failed, { status: 'failed', html: null, text_body: null })
      t.notMatch(JSON.stringify(failed), /token=/, 'failed for good: no token left')

      const cancelled = await createEmailUser(ctx)
      const [pending] = await rowsOf(cancelled.userId)
      t.match(pending!.text_body, /token=/)
      const cancel = await call({ method: 'DELETE', url: `/email-sending/${pending!.id}` })
      t.equal(cancel.statusCode, 200)
      const after = await emailRow(ctx, pending!.id)
      t.match(after, { status: 'cancelled', html: null, text_body: null })
      t.notMatch(JSON.stringify(after), /token=/, 'cancelled: no token left')

      await putTemplate(ctx, 'newsletter')
      const queued = await call({
        method: 'POST',
        url: '/email-sending/send',
        payload: { userId: sent.userId, templateSlug: 'newsletter', language: 'en', variables: { prize: 'a hat' } },
      })
      t.equal(queued.statusCode, 201)
      await deliver()
      t.match(
        await emailRow(ctx, queued.json().id),
        { status: 'sent', html: /a hat/, text_body: /a hat/ },
        'a game e-mail keeps its body',
      )
    },
  )

  t.test('the system templates may not put the token in the subject (it is kept after sending)', async (t) => {
    for (const variable of ['token', 'verifyUrl']) {
      const res = await ctx.admin({
        method: 'PUT',
        url: '/email-templates/email-verification',
        payload: {
          defaultLanguage: 'en',
          clientCallable: false,
          variables: { username: 'there', verifyUrl: null, token: null },
          translations: { en: { subject: `Your code: {{ ${variable} }}`, html: '<p>{{verifyUrl}} {{token}}</p>' } },
        },
      })
      const body = assertError(t, res, 400, 'VALIDATION_ERROR')
      t.same(body.details, [{ path: '/translations/en/subject', message: body.message }])
    }
  })

  t.test('verification tokens expire after 24 hours; concurrent uses spend one token once', async (t) => {
    const user = await createEmailUser(ctx)
    await deliver()
    const token = tokenIn(mailTo(user.email)[0]!.text)!
    clock.advance(24 * 3600_000 + 1)
    assertError(t, await call({ method: 'POST', url: VERIFY, payload: { token } }), 400, 'INVALID_TOKEN')

    const other = await createEmailUser(ctx)
    await deliver()
    const fresh = tokenIn(mailTo(other.email)[0]!.text)!
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call({ method: 'POST', url: VERIFY, payload: { token: fresh } })),
    )
    t.same(results.map((r) => r.statusCode).sort(), [200, 400, 400, 400, 400, 400])
  })

  t.test('one account per e-mail, case-insensitively, also when sign-ups race', async (t) => {
    await createEmailUser(ctx, { email: 'Unique@Example.org' })
    const again = await call({
      method: 'POST',
      url: SIGNUP,
      payload: { type: 'EMAIL', email: 'unique@EXAMPLE.org', password: 'another-password' },
    })
    const body = assertError(t, again, 409, 'USER_ALREADY_EXISTS')
    t.match(body.message, /already exists/)
    const racing = await Promise.all(
      Array.from({ length: 5 }, () =>
        call({
          method: 'POST',
          url: SIGNUP,
          payload: { type: 'EMAIL', email: 'race@example.org', password: 'password-123' },
        }),
      ),
    )
    t.same(racing.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409])
  })

  t.test('bad sign-up input is 400 and stores nothing', async (t) => {
    const count = async () =>
      Number(
        (
          await app.db
            .selectFrom('users')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    const cases: unknown[] = [
      { type: 'EMAIL', password: 'password-123' },
      { type: 'EMAIL', email: 'a@example.org' },
      { type: 'EMAIL', email: 'not-an-email', password: 'password-123' },
      { type: 'EMAIL', email: 'a@example.org', password: 'short' },
      { type: 'EMAIL', email: 'a@example.org', password: 'x'.repeat(129) },
      { type: 'EMAIL', email: `${'a'.repeat(250)}@example.org`, password: 'password-123' },
      { type: 'EMAIL', email: 'a@example.org', password: 12345678 },
      { type: 'EMAIL', email: 'a@example.org', password: 'password-123', username: '   ' },
    ]
    for (const payload of cases)
      assertError(t, await call({ method: 'POST', url: SIGNUP, payload: payload as object }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNUP,
        headers: { 'content-type': 'application/json' },
        payload: '{"type":"EMAIL",',
      }),
      400,
      'INVALID_JSON',
    )
    t.equal(await count(), before)
  })

  t.test('the admin user search finds users by e-mail; deleting a user erases tokens and mails', async (t) => {
    const user = await createEmailUser(ctx, { email: 'Findable.Person@Example.org' })
    for (const query of ['findable.person', 'FINDABLE', 'Person@Example.org']) {
      const res = await ctx.admin({ method: 'GET', url: `/users?query=${encodeURIComponent(query)}` })
      t.equal(res.statusCode, 200)
      t.same(
        res.json().items.map((u: { userId: string }) => u.userId),
        [user.userId],
        `found by ${query}`,
      )
    }
    t.equal((await ctx.admin({ method: 'DELETE', url: `/users/${user.userId}` })).statusCode, 200)
    t.equal(
      (await app.db.selectFrom('account_tokens').select('id').where('user_id', '=', user.userId).execute()).length,
      0,
    )
    t.equal((await app.db.selectFrom('emails').select('id').where('user_id', '=', user.userId).execute()).length, 0)
  })

  t.test('without SMTP: e-mail accounts work, nothing is queued, forgot-password still answers 200', async (t) => {
    const plain = await buildTestApp(t, dialect)
    const res = await plain.call({
      method: 'POST',
      url: SIGNUP,
      payload: { type: 'EMAIL', email: 'quiet@example.org', password: 'password-123' },
    })
    t.equal(res.statusCode, 201)
    t.equal(
      (await plain.call({ method: 'POST', url: FORGOT, payload: { email: 'quiet@example.org' } })).statusCode,
      200,
    )
    t.equal((await plain.app.db.selectFrom('emails').select('id').execute()).length, 0)
    t.equal((await plain.app.db.selectFrom('account_tokens').select('id').execute()).length, 0)
    t.same(await plain.app.emailWorker.runOnce(), { released: 0, claimed: 0, sent: 0, retried: 0, failed: 0 })
    const anon = await createUser(plain)
    t.equal(anon.userId.length, 36, 'anonymous sign-up unchanged')
  })
})
