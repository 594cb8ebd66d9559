import { createHash, randomBytes, scryptSync } from 'node:crypto'
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from './helpers/app.js'
import { startSmtp } from './helpers/smtp.js'
import { createEmailUser, emailApp, emailRow, putTemplate } from './fixtures/email.js'
import { bearer, createUser } from './fixtures/users.js'
import { hashSlots, MAX_CONCURRENT_HASHES, MAX_WAITING_HASHES } from '../plugins/security/passwords.js'
import { upgradePasswordHash } from '../plugins/users/service.js'

const SIGNUP = '/user-management/signup'
const SIGNIN = '/user-management/signin'
const VERIFY = '/user-management/verify-email'
const FORGOT = '/user-management/forgot-password'
const RESET = '/user-management/reset-password'
const MINUTE = 60_000

const tokenIn = (text: string) => /token=([A-Za-z0-9_-]+)/.exec(text)?.[1]
/** The lockout's key as stored: the SHA-256 of the trimmed, lower-cased address. */
const loginKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')

/** A hash in the format of the first release (N = 2^14, r = 8, p = 1), made here independently of the server. */
function oldFormatHash(password: string) {
  const salt = randomBytes(16)
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N: 16384, r: 8, p: 1 })
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

eachDialect(t, async (t, dialect) => {
  const smtp = await startSmtp(t)
  const ctx = await emailApp(t, dialect, smtp.url, { env: { PUBLIC_URL: 'https://play.example.org/' } })
  const { call, app, clock } = ctx
  const deliver = () => app.emailWorker.runOnce()
  // nodemailer lower-cases the domain of the recipient; the local part is kept as written.
  const mailTo = (address: string) =>
    smtp.mails.filter((m) => m.to.some((to) => to.toLowerCase() === address.toLowerCase()))

  t.test('Unity-style e-mail sign-up, verification mail, verify, isVerified', async (t) => {
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

  t.test('wrong password and unknown e-mail: the same 401, in about the same time', async (t) => {
    const user = await createEmailUser(ctx, { username: 'Grace' })
    const wrong = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: 'wrong-password' },
    })
    const unknown = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: 'nobody@example.org', password: 'wrong-password' },
    })
    for (const res of [wrong, unknown]) {
      const body = assertError(t, res, 401, 'INVALID_CREDENTIALS')
      t.equal(body.authStatus, 'INVALID_CREDENTIALS')
    }
    t.same(wrong.json(), unknown.json(), 'identical bodies')
    const ok = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email.toUpperCase(), password: user.password, includeRefreshToken: true },
    })
    t.equal(ok.statusCode, 200)
    t.match(ok.json(), { userId: user.userId, username: 'Grace', isAnonymous: false, anonymousToken: null })
    t.type(ok.json().refreshToken, 'string')
    t.not(ok.json().accessToken, user.accessToken, 'a new session')
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email } }),
      400,
      'VALIDATION_ERROR',
    )
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', password: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )

    const time = async (email: string) => {
      const started = process.hrtime.bigint()
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email, password: 'wrong-password' } })
      return Number(process.hrtime.bigint() - started) / 1e6
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const known: number[] = []
    const missing: number[] = []
    for (let i = 0; i < 3; i++) {
      known.push(await time(user.email))
      missing.push(await time(`ghost${i}@example.org`))
    }
    t.comment(
      `sign-in median: wrong password ${median(known).toFixed(1)} ms, unknown e-mail ${median(missing).toFixed(1)} ms`,
    )
    t.ok(median(missing) > median(known) * 0.5, 'an unknown e-mail still pays for a password hash')
    await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password: user.password } })
  })

  t.test('brute force stops at the 11th attempt, for 15 minutes', async (t) => {
    const user = await createEmailUser(ctx)
    for (let i = 1; i <= 10; i++) {
      const res = await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: `guess-${i}` },
      })
      t.equal(res.statusCode, 401, `attempt ${i} is checked`)
    }
    const eleventh = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: user.password },
    })
    const body = assertError(t, eleventh, 429, 'TOO_MANY_ATTEMPTS')
    t.equal(body.authStatus, 'TOO_MANY_ATTEMPTS')
    t.equal(body.retryAfterSeconds, 900)
    t.equal(eleventh.headers['retry-after'], undefined, 'no Retry-After: the Unity and Unreal SDKs would wait it out')
    clock.advance(14 * MINUTE)
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
    clock.advance(MINUTE)
    const after = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: user.password },
    })
    t.equal(after.statusCode, 200, 'works again after 15 minutes')
    const other = await createEmailUser(ctx)
    t.equal(
      (
        await call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'EMAIL', email: other.email, password: other.password },
        })
      ).statusCode,
      200,
      'other accounts unaffected',
    )
  })

  t.test('failures spread over more than 15 minutes do not lock; a success forgives them', async (t) => {
    const user = await createEmailUser(ctx)
    for (let i = 0; i < 9; i++)
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password: 'nope-nope' } })
    clock.advance(15 * MINUTE + 1)
    for (let i = 0; i < 9; i++) {
      t.equal(
        (
          await call({
            method: 'POST',
            url: SIGNIN,
            payload: { type: 'EMAIL', email: user.email, password: 'nope-nope' },
          })
        ).statusCode,
        401,
      )
    }
    t.equal(
      (
        await call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'EMAIL', email: user.email, password: user.password },
        })
      ).statusCode,
      200,
    )
    const kept = await app.db
      .selectFrom('login_failures')
      .select('id')
      .where('key_hash', '=', loginKey(user.email))
      .execute()
    t.equal(kept.length, 0, 'the failures are forgotten after a success')
  })

  t.test('an unknown e-mail locks exactly like a known one (no account enumeration)', async (t) => {
    const user = await createEmailUser(ctx)
    const ghost = `nobody.${Date.now()}@example.org`
    const attempt = (email: string, password: string) =>
      call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email, password } })
    for (let i = 1; i <= 10; i++) {
      const known = await attempt(user.email, `guess-${i}`)
      const unknown = await attempt(ghost, `guess-${i}`)
      t.equal(known.statusCode, 401, `known, attempt ${i}`)
      t.equal(unknown.statusCode, 401, `unknown, attempt ${i}`)
      t.same(unknown.json(), known.json())
    }
    const known = await attempt(user.email, user.password)
    const unknown = await attempt(ghost.toUpperCase(), 'anything-at-all')
    assertError(t, unknown, 429, 'TOO_MANY_ATTEMPTS')
    t.same(unknown.json(), known.json(), 'the same 429 body')
    t.equal(unknown.headers['retry-after'], undefined, 'no Retry-After')
    const stored = await app.db
      .selectFrom('login_failures')
      .select('key_hash')
      .where('key_hash', '=', loginKey(ghost))
      .execute()
    t.equal(stored.length, 10, 'failures counted for the address that has no account')
    t.notMatch(
      JSON.stringify(await app.db.selectFrom('login_failures').selectAll().execute()),
      /nobody/,
      'the typed address is not stored',
    )
    clock.advance(15 * MINUTE)
    t.equal((await attempt(user.email, user.password)).statusCode, 200, 'the known account works again')
    assertError(t, await attempt(ghost, 'anything-at-all'), 401, 'INVALID_CREDENTIALS')
  })

  t.test('concurrent guesses at an unknown e-mail never get more than 10 checks either', async (t) => {
    const ghost = `nobody-race.${Date.now()}@example.org`
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: ghost, password: `guess-${i}` } }),
      ),
    )
    t.same(
      [...new Set(results.map((r) => r.statusCode))].filter((s) => s !== 401 && s !== 429),
      [],
      `only 401 and 429: ${results.map((r) => (r.statusCode === 500 ? r.body : r.statusCode)).join(' ')}`,
    )
    t.equal(results.filter((r) => r.statusCode === 401).length, 10, 'ten checked')
    t.equal(results.filter((r) => r.statusCode === 429).length, 6, 'the rest are 429')
  })

  t.test("a hash of the first release still verifies and is upgraded to today's parameters on sign-in", async (t) => {
    const user = await createEmailUser(ctx)
    const old = oldFormatHash(user.password)
    await app.db.updateTable('users').set({ password_hash: old }).where('id', '=', user.userId).execute()
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: 'not-the-password' },
      }),
      401,
      'INVALID_CREDENTIALS',
    )
    const row = () =>
      app.db.selectFrom('users').select('password_hash').where('id', '=', user.userId).executeTakeFirstOrThrow()
    t.equal((await row()).password_hash, old, 'a failed sign-in upgrades nothing')
    const signin = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: user.password },
    })
    t.equal(signin.statusCode, 200, 'the old hash verifies')
    const upgraded = (await row()).password_hash!
    t.match(upgraded, /^scrypt\$32768\$8\$3\$/, 'stored again with N = 2^15, r = 8, p = 3')
    t.not(upgraded, old)
    t.equal(
      (
        await call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'EMAIL', email: user.email, password: user.password },
        })
      ).statusCode,
      200,
      'the new hash verifies',
    )
    t.equal((await row()).password_hash, upgraded, 'a current hash is left alone')
    // The upgrade is conditional on the hash it replaces: a password changed in between stays.
    t.equal(await upgradePasswordHash(app.db, user.userId, old, oldFormatHash('stale')), false)
    t.equal((await row()).password_hash, upgraded)
  })

  t.test(`a burst of sign-ins never runs more than ${MAX_CONCURRENT_HASHES} hashes at once`, async (t) => {
    const user = await createEmailUser(ctx)
    const other = await createEmailUser(ctx)
    t.equal(hashSlots.active, 0, 'no hash in flight before')
    hashSlots.resetPeak()
    const started = Date.now()
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => {
        const who = i % 2 === 0 ? user : other
        const password = i % 4 < 2 ? who.password : 'wrong-password'
        return call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: who.email, password } })
      }),
    )
    t.comment(`8 parallel sign-ins in ${Date.now() - started} ms`)
    t.same(
      results.map((r) => r.statusCode),
      [200, 200, 401, 401, 200, 200, 401, 401],
    )
    t.equal(
      hashSlots.resetPeak(),
      MAX_CONCURRENT_HASHES,
      `at most ${MAX_CONCURRENT_HASHES} at once, and the bound was reached`,
    )
    t.equal(hashSlots.active, 0, 'every slot given back')
    t.equal(hashSlots.waiting, 0, 'nobody left waiting')
  })

  t.test('with every hash slot taken and the line full, a sign-in is 503 and counts as no attempt', async (t) => {
    const user = await createEmailUser(ctx)
    const releases: Array<() => void> = []
    const held = Array.from({ length: MAX_CONCURRENT_HASHES + MAX_WAITING_HASHES }, () =>
      hashSlots.run(() => new Promise<void>((resolve) => releases.push(resolve))),
    )
    t.teardown(() => releases.forEach((release) => release()))
    t.equal(hashSlots.active, MAX_CONCURRENT_HASHES)
    t.equal(hashSlots.waiting, MAX_WAITING_HASHES)
    const busy = await call({
      method: 'POST',
      url: SIGNIN,
      payload: { type: 'EMAIL', email: user.email, password: user.password },
    })
    assertError(t, busy, 503, 'SERVICE_UNAVAILABLE')
    t.equal(busy.headers['retry-after'], '1')
    const failures = await app.db
      .selectFrom('login_failures')
      .select('id')
      .where('key_hash', '=', loginKey(user.email))
      .execute()
    t.equal(failures.length, 0, 'the unchecked attempt is not a failure')
    // Free the slots one by one: each finishing hash hands its slot to the next in line.
    for (let i = 0; i < MAX_CONCURRENT_HASHES + MAX_WAITING_HASHES && releases.length > 0; i++) {
      releases.shift()!()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(held)
    t.equal(hashSlots.active, 0)
    t.equal(
      (
        await call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'EMAIL', email: user.email, password: user.password },
        })
      ).statusCode,
      200,
    )
  })

  t.test('concurrent guesses never get more than 10 password checks', async (t) => {
    const user = await createEmailUser(ctx)
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password: `guess-${i}` } }),
      ),
    )
    const checked = results.filter((r) => r.statusCode === 401).length
    t.ok(checked <= 10, `${checked} guesses were checked`)
    t.equal(results.filter((r) => r.statusCode === 429).length, 25 - checked, 'the rest are 429')
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
  })

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

  t.test('a banned e-mail account is refused after the right password only', async (t) => {
    const user = await createEmailUser(ctx)
    await ctx.admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })
    assertError(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: { type: 'EMAIL', email: user.email, password: 'wrong-one' } }),
      401,
      'INVALID_CREDENTIALS',
    )
    assertError(
      t,
      await call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'EMAIL', email: user.email, password: user.password },
      }),
      403,
      'USER_BANNED',
    )
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
