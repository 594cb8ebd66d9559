import t from 'tap'
import { assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { HOUR, ISO_MS, SEND, emailRow, putTemplate, sameDatabase, setUpEmailSending } from '../../fixtures/email.js'
import { bearer, createUser } from '../../fixtures/users.js'

eachDialect(t, async (t, dialect) => {
  const { ctx, worker, player, mailsWith } = await setUpEmailSending(t, dialect)
  const { call, app, clock } = ctx

  t.test('send as the Godot SDK does: delivered to the account address with escaped variables', async (t) => {
    const user = await player()
    const res = await call({
      method: 'POST',
      url: SEND,
      payload: {
        userId: user.userId,
        templateSlug: 'reward',
        variables: { name: 'Ada <Queen> & co', prize: '"100" gems' },
        language: 'en',
      },
    })
    t.equal(res.statusCode, 201)
    const body = res.json()
    t.same(Object.keys(body).sort(), ['id', 'scheduledAt', 'status'])
    t.equal(body.status, 'pending')
    t.equal(body.scheduledAt, new Date(clock.now()).toISOString())
    const status = await call({ method: 'GET', url: `/email-sending/${body.id}` })
    t.same(status.json(), {
      id: body.id,
      status: 'pending',
      templateSlug: 'reward',
      userId: user.userId,
      language: 'en',
      scheduledAt: body.scheduledAt,
      processedAt: null,
      attempts: 0,
      errorReason: null,
      createdAt: body.scheduledAt,
    })
    t.same(await worker.runOnce(), { released: 0, claimed: 1, sent: 1, retried: 0, failed: 0 })
    const mail = mailsWith('Hi Ada <Queen> & co')[0]!
    t.ok(mail, 'delivered')
    t.same(
      mail.to.map((a) => a.toLowerCase()),
      [user.email.toLowerCase()],
      'to the account address',
    )
    t.equal(mail.from, 'no-reply@localhost')
    t.equal(mail.html, '<p>Hello Ada &lt;Queen&gt; &amp; co, you won &quot;100&quot; gems</p>')
    t.equal(mail.text, 'Hello Ada <Queen> & co, you won "100" gems')
    const after = (await call({ method: 'GET', url: `/email-sending/${body.id}` })).json()
    t.match(after, { status: 'sent', attempts: 1, errorReason: null })
    t.match(after.processedAt, ISO_MS)
    t.equal((await emailRow(ctx, body.id)).html, mail.html, 'a game mail keeps its body for the operator')
  })

  t.test(
    'Unity-style send (no session, variables {}, scheduledAt null): defaults, or 422 naming the missing',
    async (t) => {
      const user = await player()
      await putTemplate(ctx, 'all-defaults', {
        variables: { name: 'Champion', prize: 'a badge' },
        translations: {
          en: { subject: 'Gift for {{name}}', html: '<p>{{prize}}</p>' },
          de: { subject: 'Geschenk für {{name}}', html: '<p>{{prize}}</p>' },
        },
      })
      const res = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'all-defaults',
          variables: {},
          language: 'DE',
          scheduledAt: null,
        },
      })
      t.equal(res.statusCode, 201)
      await worker.runOnce()
      const [mail] = mailsWith('Geschenk für Champion')
      t.ok(mail, 'delivered with the defaults, in the requested language')
      t.equal(mail!.html, '<p>a badge</p>')
      t.equal(mail!.text, '', 'no text part when the translation has none')
      t.equal((await call({ method: 'GET', url: `/email-sending/${res.json().id}` })).json().language, 'de')

      await putTemplate(ctx, 'needs-vars', {
        variables: { name: 'x', code: null, level: null },
        translations: { en: { subject: '{{name}}', html: '{{code}} {{level}}' } },
      })
      const missing = assertError(
        t,
        await call({
          method: 'POST',
          url: SEND,
          payload: { userId: user.userId, templateSlug: 'needs-vars', variables: {}, language: 'en' },
        }),
        422,
        'MISSING_VARIABLES',
      )
      t.same(missing.missingVariables, ['code', 'level'])
      t.match(missing.message, /code, level/)
      const noVariables = assertError(
        t,
        await call({
          method: 'POST',
          url: SEND,
          payload: { userId: user.userId, templateSlug: 'needs-vars', language: 'en' },
        }),
        422,
        'MISSING_VARIABLES',
      )
      t.same(noVariables.missingVariables, ['code', 'level'])
    },
  )

  t.test('checks come in the documented order', async (t) => {
    const user = await player()
    const anon = await createUser(ctx)
    const send = (payload: object, headers = {}) =>
      call({ method: 'POST', url: SEND, payload: { language: 'en', variables: {}, ...payload }, headers })
    const ghost = '00000000-0000-4000-8000-000000000000'
    const farFuture = new Date(clock.now() + 400 * 24 * HOUR).toISOString()
    assertError(t, await send({ userId: ghost, templateSlug: 'nope', scheduledAt: farFuture }), 400, 'VALIDATION_ERROR')
    assertError(t, await send({ userId: ghost, templateSlug: 'nope' }), 404, 'USER_NOT_FOUND')
    assertError(t, await send({ userId: anon.userId, templateSlug: 'nope' }), 404, 'TEMPLATE_NOT_FOUND')
    assertError(t, await send({ userId: anon.userId, templateSlug: 'needs-vars' }), 422, 'USER_HAS_NO_EMAIL')
    assertError(t, await send({ userId: user.userId, templateSlug: 'needs-vars' }), 422, 'MISSING_VARIABLES')
    assertError(t, await send({ userId: user.userId, templateSlug: 'reward' }, bearer(anon)), 403, 'SESSION_FORBIDDEN')
    assertError(
      t,
      await send({ userId: user.userId, templateSlug: 'reward' }, { authorization: 'Bearer nope' }),
      401,
      'SESSION_REQUIRED',
    )
    const ok = await send({ userId: user.userId, templateSlug: 'reward', variables: { prize: 'x' } }, bearer(user))
    t.equal(ok.statusCode, 201, "the owner's session is fine")
    await ctx.admin({ method: 'POST', url: `/users/${user.userId}/ban`, payload: {} })
    assertError(t, await send({ userId: user.userId, templateSlug: 'nope' }), 403, 'USER_BANNED')
    await ctx.admin({ method: 'POST', url: `/users/${user.userId}/unban`, payload: {} })
  })

  t.test('bad input is 400 in the shared shape and stores nothing', async (t) => {
    const user = await player()
    const count = async () =>
      Number(
        (
          await app.db
            .selectFrom('emails')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    const before = await count()
    const base = { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } }
    const cases: object[] = [
      { ...base, userId: 'not-a-uuid' },
      { ...base, language: undefined },
      { ...base, templateSlug: '' },
      { ...base, variables: { prize: 5 } },
      { ...base, variables: 'prize' },
      { ...base, variables: { prize: 'x'.repeat(10_001) } },
      { ...base, scheduledAt: 'tomorrow' },
      { ...base, scheduledAt: '2026-11-23' },
      { ...base, scheduledAt: new Date(clock.now() + 367 * 24 * HOUR).toISOString() },
      { ...base, scheduledAt: 1767225600000 },
      { ...base, scheduledAt: '2026-12-31T23:59:60Z' },
    ]
    for (const payload of cases)
      assertError(t, await call({ method: 'POST', url: SEND, payload }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'POST', url: SEND, headers: { 'content-type': 'application/json' }, payload: '{"userId":' }),
      400,
      'INVALID_JSON',
    )
    assertError(t, await call({ method: 'GET', url: '/email-sending/not-a-uuid' }), 400, 'VALIDATION_ERROR')
    assertError(t, await call({ method: 'DELETE', url: '/email-sending/not-a-uuid' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await call({ method: 'GET', url: '/email-sending/00000000-0000-4000-8000-000000000000' }),
      404,
      'EMAIL_NOT_FOUND',
    )
    assertError(
      t,
      await call({ method: 'DELETE', url: '/email-sending/00000000-0000-4000-8000-000000000000' }),
      404,
      'EMAIL_NOT_FOUND',
    )
    t.equal(await count(), before)
  })

  t.test('the hourly quota: 10 game mails, account mails not counted, concurrent sends never exceed it', async (t) => {
    const user = await player()
    await call({ method: 'POST', url: '/user-management/forgot-password', payload: { email: user.email } })
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        call({
          method: 'POST',
          url: SEND,
          payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: `q${i}` } },
        }),
      ),
    )
    const codes = results.map((r) => r.statusCode)
    t.equal(codes.filter((c) => c === 201).length, 10, 'exactly the quota is accepted')
    for (const res of results.filter((r) => r.statusCode !== 201)) assertError(t, res, 429, 'EMAIL_QUOTA_EXCEEDED')
    clock.advance(HOUR + 1)
    t.equal(
      (
        await call({
          method: 'POST',
          url: SEND,
          payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } },
        })
      ).statusCode,
      201,
      'an hour later',
    )
    await worker.runOnce()
  })

  t.test("status and cancel in strict mode need the owner's session; both work without SMTP", async (t) => {
    const user = await player()
    const other = await player()
    const id = (
      await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'p' },
          scheduledAt: new Date(clock.now() + HOUR).toISOString(),
        },
      })
    ).json().id
    const strict = await buildTestApp(t, dialect, { dbEnv: sameDatabase(ctx), clock, env: { AUTH_MODE: 'strict' } })
    assertError(t, await strict.call({ method: 'GET', url: `/email-sending/${id}` }), 401, 'SESSION_REQUIRED')
    assertError(
      t,
      await strict.call({ method: 'GET', url: `/email-sending/${id}`, headers: bearer(other) }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await strict.call({ method: 'DELETE', url: `/email-sending/${id}`, headers: bearer(other) }),
      403,
      'SESSION_FORBIDDEN',
    )
    t.equal((await strict.call({ method: 'GET', url: `/email-sending/${id}`, headers: bearer(user) })).statusCode, 200)
    assertError(
      t,
      await call({ method: 'GET', url: `/email-sending/${id}`, headers: bearer(other) }),
      403,
      'SESSION_FORBIDDEN',
    )
    assertError(
      t,
      await strict.call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en' },
      }),
      401,
      'SESSION_REQUIRED',
    )
    assertError(
      t,
      await strict.call({
        method: 'POST',
        url: SEND,
        headers: bearer(user),
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en' },
      }),
      503,
      'EMAIL_DISABLED',
    )
    t.equal(
      (await strict.call({ method: 'DELETE', url: `/email-sending/${id}`, headers: bearer(user) })).statusCode,
      200,
      'cancel without SMTP',
    )
    t.equal(strict.app.emailWorker.enabled, false)
  })
})
