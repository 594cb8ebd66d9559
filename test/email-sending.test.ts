import { createServer } from 'node:net'
import t from 'tap'
import { assertError, buildTestApp, eachDialect } from './helpers/app.js'
import { startSmtp } from './helpers/smtp.js'
import { createEmailUser, emailApp, emailRow, putTemplate, sameDatabase } from './fixtures/email.js'
import { bearer, createUser } from './fixtures/users.js'

const SEND = '/email-sending/send'
const HOUR = 3600_000
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** A port nothing listens on: connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

eachDialect(t, async (t, dialect) => {
  const smtp = await startSmtp(t)
  const ctx = await emailApp(t, dialect, smtp.url)
  const { call, app, clock } = ctx
  const worker = app.emailWorker
  // Each player's verification mail is delivered and set aside, so tests count only their own mails.
  const player = async () => {
    const user = await createEmailUser(ctx)
    await worker.runOnce()
    return user
  }
  const mailsWith = (subject: string) => smtp.mails.filter((m) => m.subject === subject)
  await putTemplate(ctx, 'reward')

  t.test('system templates exist from the start, editable, not client-callable', async (t) => {
    const list = await ctx.admin({ method: 'GET', url: '/email-templates' })
    t.equal(list.statusCode, 200)
    const slugs = list.json().items.map((i: { slug: string }) => i.slug)
    t.ok(slugs.includes('email-verification') && slugs.includes('password-reset'))
    const one = (await ctx.admin({ method: 'GET', url: '/email-templates/password-reset' })).json()
    t.match(one, {
      slug: 'password-reset',
      system: true,
      clientCallable: false,
      defaultLanguage: 'en',
      variables: { resetUrl: null, token: null },
    })
    t.match(one.createdAt, ISO_MS)
    const user = await player()
    assertError(
      t,
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'password-reset', language: 'en', variables: {} },
      }),
      404,
      'TEMPLATE_NOT_FOUND',
    )
    const callable = await ctx.admin({
      method: 'PUT',
      url: '/email-templates/password-reset',
      payload: { ...one, clientCallable: true },
    })
    assertError(t, callable, 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.admin({ method: 'DELETE', url: '/email-templates/email-verification' }), 409, 'CONFLICT')
    const edited = await ctx.admin({
      method: 'PUT',
      url: '/email-templates/password-reset',
      payload: {
        defaultLanguage: 'en',
        clientCallable: false,
        variables: one.variables,
        translations: { en: { ...one.translations.en, subject: 'New password for {{username}}' } },
      },
    })
    t.equal(edited.statusCode, 200)
    t.match(edited.json(), { system: true, translations: { en: { subject: 'New password for {{username}}' } } })
    await call({ method: 'POST', url: '/user-management/forgot-password', payload: { email: user.email } })
    await worker.runOnce()
    t.equal(mailsWith('New password for there').length, 0)
    t.equal(
      smtp.mails.filter((m) => /^New password for Player-\d{4}$/.test(m.subject)).length,
      1,
      'account mails use the edited template',
    )
  })

  t.test(
    'template admin: create, read, list pages, preview, delete; bad templates are 400 and not stored',
    async (t) => {
      const created = await putTemplate(ctx, 'Welcome_1', {
        variables: { name: 'friend', code: null },
        translations: {
          en: { subject: 'Welcome {{ name }}', html: '<b>{{name}}</b> code {{code}}', text: 'code {{code}}' },
          'de-DE': { subject: 'Willkommen {{name}}', html: '<b>{{name}}</b> Code {{code}}', text: null },
        },
      })
      t.match(created, {
        slug: 'Welcome_1',
        clientCallable: true,
        system: false,
        variables: { name: 'friend', code: null },
      })
      t.same(created.translations['de-DE'], {
        subject: 'Willkommen {{name}}',
        html: '<b>{{name}}</b> Code {{code}}',
        text: null,
      })
      t.equal(
        (await ctx.admin({ method: 'GET', url: '/email-templates/welcome_1' })).statusCode,
        404,
        'slugs are case-sensitive',
      )

      const preview = (payload: object) =>
        ctx.admin({ method: 'POST', url: '/email-templates/Welcome_1/preview', payload })
      t.same(
        (await preview({ language: 'en', variables: { code: '<script>&"\'' } })).json(),
        {
          language: 'en',
          subject: 'Welcome friend',
          html: '<b>friend</b> code &lt;script&gt;&amp;&quot;&#39;',
          text: 'code <script>&"\'',
        },
        'defaults fill, values are escaped in html only',
      )
      t.match((await preview({ language: 'DE-de', variables: { code: '1' } })).json(), {
        language: 'de-DE',
        subject: 'Willkommen friend',
        text: null,
      })
      t.match(
        (await preview({ language: 'de', variables: { code: '1' } })).json(),
        { language: 'en' },
        'no "de" translation: the default',
      )
      t.match((await preview({ language: 'fr-CA', variables: { code: '1' } })).json(), { language: 'en' })
      const missing = assertError(t, await preview({ variables: {} }), 422, 'MISSING_VARIABLES')
      t.same(missing.missingVariables, ['code'])
      t.match(missing.message, /code/)
      assertError(
        t,
        await ctx.admin({ method: 'POST', url: '/email-templates/nope/preview', payload: {} }),
        404,
        'TEMPLATE_NOT_FOUND',
      )

      const bad: Array<[string, object]> = [
        ['undeclared variable', { translations: { en: { subject: 'x', html: '{{ghost}}' } } }],
        ['default language missing', { defaultLanguage: 'fr' }],
        ['bad variable name', { variables: { '1abc': null }, translations: { en: { subject: 'x', html: 'y' } } }],
        ['same language twice', { translations: { en: { subject: 'x', html: 'y' }, EN: { subject: 'x', html: 'y' } } }],
        [
          'bad language tag',
          { translations: { en: { subject: 'x', html: 'y' }, 'not a tag': { subject: 'x', html: 'y' } } },
        ],
        ['subject with a line break', { translations: { en: { subject: 'a\r\nBcc: x@y.z', html: 'y' } } }],
        ['empty html', { translations: { en: { subject: 'x', html: '' } } }],
        ['no translations', { translations: {} }],
        ['clientCallable as a string', { clientCallable: 'true' }],
        ['variable default a number', { variables: { n: 5 } }],
      ]
      for (const [what, body] of bad) {
        const res = await ctx.admin({
          method: 'PUT',
          url: '/email-templates/broken',
          payload: {
            defaultLanguage: 'en',
            clientCallable: true,
            variables: {},
            translations: { en: { subject: 'x', html: 'y' } },
            ...body,
          },
        })
        assertError(t, res, 400, 'VALIDATION_ERROR')
        t.comment(what)
      }
      assertError(
        t,
        await ctx.admin({ method: 'PUT', url: '/email-templates/has space', payload: {} }),
        400,
        'VALIDATION_ERROR',
      )
      t.equal((await ctx.admin({ method: 'GET', url: '/email-templates/broken' })).statusCode, 404, 'nothing stored')

      const first = (await ctx.admin({ method: 'GET', url: '/email-templates?limit=1' })).json()
      t.equal(first.items.length, 1)
      t.type(first.nextCursor, 'string')
      const rest = (
        await ctx.admin({ method: 'GET', url: `/email-templates?limit=100&cursor=${first.nextCursor}` })
      ).json()
      t.notOk(
        rest.items.some((i: { slug: string }) => i.slug === first.items[0].slug),
        'pages do not overlap',
      )
      t.equal(rest.nextCursor, null)
      assertError(
        t,
        await ctx.admin({ method: 'GET', url: '/email-templates?cursor=garbage' }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(t, await ctx.admin({ method: 'GET', url: '/email-templates?limit=0' }), 400, 'VALIDATION_ERROR')

      const racing = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          ctx.admin({
            method: 'PUT',
            url: '/email-templates/raced',
            payload: {
              defaultLanguage: 'en',
              clientCallable: false,
              variables: {},
              translations: { en: { subject: `v${i}`, html: 'x' } },
            },
          }),
        ),
      )
      t.same(
        racing.map((r) => r.statusCode),
        [200, 200, 200, 200],
        'concurrent creations all succeed (PUT replaces)',
      )
      t.match(
        (await ctx.admin({ method: 'GET', url: '/email-templates/raced' })).json().translations.en.subject,
        /^v[0-3]$/,
      )
      t.same((await ctx.admin({ method: 'DELETE', url: '/email-templates/Welcome_1' })).json(), {
        slug: 'Welcome_1',
        deleted: true,
      })
      assertError(
        t,
        await ctx.admin({ method: 'DELETE', url: '/email-templates/Welcome_1' }),
        404,
        'TEMPLATE_NOT_FOUND',
      )
      assertError(t, await ctx.admin({ method: 'GET', url: '/email-templates/Welcome_1' }), 404, 'TEMPLATE_NOT_FOUND')
      t.equal((await call({ method: 'GET', url: '/email-templates' })).statusCode, 404, 'not on the app API')
    },
  )

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

  t.test(
    'a scheduled e-mail waits for its time; past means now; 9 fractional digits and offsets are fine',
    async (t) => {
      const user = await player()
      const at = clock.now() + HOUR
      const res = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'later' },
          scheduledAt: new Date(at).toISOString().replace('.000Z', 'Z'),
        },
      })
      t.equal(res.statusCode, 201)
      t.equal(res.json().scheduledAt, new Date(at).toISOString())
      t.same(await worker.runOnce(), { released: 0, claimed: 0, sent: 0, retried: 0, failed: 0 }, 'not before its time')
      clock.advance(HOUR - 1)
      t.equal((await worker.runOnce()).sent, 0)
      clock.advance(1)
      t.equal((await worker.runOnce()).sent, 1, 'sent once due')
      t.equal((await call({ method: 'GET', url: `/email-sending/${res.json().id}` })).json().status, 'sent')

      const past = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'p' },
          scheduledAt: '2020-01-01T00:00:00.123456789+02:00',
        },
      })
      t.equal(past.json().scheduledAt, new Date(clock.now()).toISOString(), 'past means now')
      const offset = await call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { prize: 'p' },
          scheduledAt: '2026-11-23T12:00:00.5+01:00',
        },
      })
      t.equal(offset.json().scheduledAt, '2026-11-23T11:00:00.500Z')
      await call({ method: 'DELETE', url: `/email-sending/${offset.json().id}` })
      await worker.runOnce()
    },
  )

  t.test('cancel works only while pending; a race with the worker has one winner', async (t) => {
    const user = await player()
    const send = async () =>
      (
        await call({
          method: 'POST',
          url: SEND,
          payload: {
            userId: user.userId,
            templateSlug: 'reward',
            language: 'en',
            variables: { prize: 'cancel-me' },
            scheduledAt: new Date(clock.now() + HOUR).toISOString(),
          },
        })
      ).json().id as string
    const id = await send()
    const cancelled = await call({
      method: 'DELETE',
      url: `/email-sending/${id}`,
      headers: { 'content-type': 'application/octet-stream' },
    })
    t.equal(cancelled.statusCode, 200)
    t.same(cancelled.json(), { id, status: 'cancelled', message: 'Email cancelled' })
    assertError(t, await call({ method: 'DELETE', url: `/email-sending/${id}` }), 409, 'CONFLICT')
    clock.advance(HOUR)
    await worker.runOnce()
    t.equal(smtp.mails.filter((m) => m.text.includes('cancel-me')).length, 0, 'a cancelled e-mail is never sent')
    const status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
    t.match(status, { status: 'cancelled', attempts: 0 })
    t.match(status.processedAt, ISO_MS)

    const sentId = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } },
      })
    ).json().id
    await worker.runOnce()
    assertError(t, await call({ method: 'DELETE', url: `/email-sending/${sentId}` }), 409, 'CONFLICT')

    smtp.delayMs = 20
    t.teardown(() => {
      smtp.delayMs = 0
    })
    for (let round = 0; round < 3; round++) {
      const raceId = (
        await call({
          method: 'POST',
          url: SEND,
          payload: {
            userId: user.userId,
            templateSlug: 'reward',
            language: 'en',
            variables: { prize: `race-${round}` },
          },
        })
      ).json().id
      const before = smtp.mails.length
      const [cancel, pass] = await Promise.all([
        call({ method: 'DELETE', url: `/email-sending/${raceId}` }),
        worker.runOnce(),
      ])
      const final = (await emailRow(ctx, raceId)).status
      if (cancel.statusCode === 200) {
        t.equal(final, 'cancelled')
        t.equal(pass.sent, 0)
        t.equal(smtp.mails.length, before, 'not sent')
      } else {
        t.equal(cancel.statusCode, 409)
        t.equal(final, 'sent')
        t.equal(smtp.mails.length, before + 1)
      }
    }
  })

  t.test(
    'a transient failure (451) is retried with backoff; a permanent one (550) fails with the reason',
    async (t) => {
      const user = await player()
      const send = async (prize: string) =>
        (
          await call({
            method: 'POST',
            url: SEND,
            payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize } },
          })
        ).json().id as string
      const id = await send('retry')
      smtp.refuseNext(1, 451, 'Greylisted, try again')
      t.same(await worker.runOnce(), { released: 0, claimed: 1, sent: 0, retried: 1, failed: 0 })
      let status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
      t.match(status, { status: 'pending', attempts: 1, processedAt: null })
      t.match(status.errorReason, /451.*Greylisted/)
      t.equal(worker.retryDelayMs(1), 30_000)
      t.equal(worker.retryDelayMs(2), 60_000)
      clock.advance(worker.retryDelayMs(1) - 1)
      t.equal((await worker.runOnce()).claimed, 0, 'not before the backoff')
      clock.advance(1)
      t.equal((await worker.runOnce()).sent, 1, 'the server recovered: delivered')
      status = (await call({ method: 'GET', url: `/email-sending/${id}` })).json()
      t.match(status, { status: 'sent', attempts: 2, errorReason: null })

      const doomed = await send('permanent')
      smtp.refuseNext(1, 550, 'No such mailbox')
      t.equal((await worker.runOnce()).failed, 1)
      status = (await call({ method: 'GET', url: `/email-sending/${doomed}` })).json()
      t.match(status, { status: 'failed', attempts: 1 })
      t.match(status.errorReason, /550.*No such mailbox/)
      t.match(status.processedAt, ISO_MS)

      const stubborn = await send('stubborn')
      smtp.refuseNext(5, 452, 'Mailbox full, try later')
      for (let attempt = 1; attempt <= 5; attempt++) {
        t.equal((await worker.runOnce()).claimed, 1, `attempt ${attempt}`)
        clock.advance(worker.retryDelayMs(attempt))
      }
      t.match(
        await emailRow(ctx, stubborn),
        { status: 'failed', attempts: 5, error_reason: /452/ },
        'gives up after EMAIL_MAX_ATTEMPTS',
      )
      t.equal((await worker.runOnce()).claimed, 0)
    },
  )

  t.test('connection errors are transient; a claim that outlives its timeout is released', async (t) => {
    const port = await closedPort()
    const down = await emailApp(t, dialect, `smtp://127.0.0.1:${port}`, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { EMAIL_MAX_ATTEMPTS: '2' },
    })
    const user = await player()
    const id = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'p' } },
      })
    ).json().id
    t.equal((await down.app.emailWorker.runOnce()).retried, 1)
    t.match(await emailRow(ctx, id), { status: 'pending', attempts: 1, error_reason: /ECONNECTION|ECONNREFUSED/ })
    clock.advance(down.app.emailWorker.retryDelayMs(1))
    t.equal((await down.app.emailWorker.runOnce()).failed, 1)
    t.match(await emailRow(ctx, id), { status: 'failed', attempts: 2 })

    // A process died holding a claim: after the timeout another pass takes it over.
    const orphan = (
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: 'orphan' } },
      })
    ).json().id
    await app.db
      .updateTable('emails')
      .set({ status: 'processing', claim_token: 'dead-instance', claimed_at: clock.now(), attempts: 1 })
      .where('id', '=', orphan)
      .execute()
    clock.advance(9 * 60_000)
    t.equal((await worker.runOnce()).released, 0, 'a recent claim is left alone')
    clock.advance(60_000)
    t.match(await worker.runOnce(), { released: 1, sent: 1 })
    t.match(await emailRow(ctx, orphan), { status: 'sent', attempts: 2, claim_token: null })
    t.equal(mailsWith('Hi Player').filter((m) => m.text.includes('orphan')).length, 1)
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

  t.test('admin queue: filter by status and user, pages, one e-mail', async (t) => {
    const user = await player()
    for (let i = 0; i < 3; i++)
      await call({
        method: 'POST',
        url: SEND,
        payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { prize: `a${i}` } },
      })
    await worker.runOnce()
    const page1 = await ctx.admin({ method: 'GET', url: `/emails?status=sent&userId=${user.userId}&limit=2` })
    t.equal(page1.statusCode, 200)
    const body = page1.json()
    t.equal(body.items.length, 2)
    t.match(body.items[0], { status: 'sent', userId: user.userId, attempts: 1 })
    t.equal(body.items[0].recipient.toLowerCase(), user.email.toLowerCase())
    const page2 = (
      await ctx.admin({
        method: 'GET',
        url: `/emails?status=sent&userId=${user.userId}&limit=2&cursor=${body.nextCursor}`,
      })
    ).json()
    t.equal(page2.items.length, 2, 'three game mails and the verification mail')
    t.equal(page2.nextCursor, null)
    const all = [...body.items, ...page2.items]
    t.equal(new Set(all.map((i: { id: string }) => i.id)).size, 4, 'pages do not overlap')
    t.same(all.map((i: { templateSlug: string }) => i.templateSlug).sort(), [
      'email-verification',
      'reward',
      'reward',
      'reward',
    ])
    t.equal(all.filter((i: { account: boolean }) => i.account).length, 1)
    t.equal((await ctx.admin({ method: 'GET', url: `/emails/${body.items[0].id}` })).json().id, body.items[0].id)
    assertError(t, await ctx.admin({ method: 'GET', url: '/emails?status=lost' }), 400, 'VALIDATION_ERROR')
    assertError(
      t,
      await ctx.admin({ method: 'GET', url: '/emails/00000000-0000-4000-8000-000000000000' }),
      404,
      'EMAIL_NOT_FOUND',
    )
    assertError(t, await call({ method: 'GET', url: '/emails' }), 404, 'NOT_FOUND')
    t.equal(
      (await ctx.admin({ method: 'GET', url: '/emails?status=processing' })).json().items.length,
      0,
      'nothing stuck in processing',
    )
  })

  t.test('two instances on one database deliver 50 queued e-mails exactly once each', async (t) => {
    const other = await emailApp(t, dialect, smtp.url, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { EMAIL_MAX_PER_USER_PER_HOUR: '100' },
    })
    const users = await Promise.all(Array.from({ length: 5 }, () => createEmailUser(ctx)))
    await worker.runOnce()
    const before = smtp.mails.length
    for (const user of users) {
      const sends = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          other.call({
            method: 'POST',
            url: SEND,
            payload: {
              userId: user.userId,
              templateSlug: 'reward',
              language: 'en',
              variables: { name: 'Bulk', prize: `${user.userId}#${i}` },
            },
          }),
        ),
      )
      t.same([...new Set(sends.map((r) => r.statusCode))], [201])
    }
    smtp.delayMs = 2
    t.teardown(() => {
      smtp.delayMs = 0
    })
    const drain = async (w: typeof worker) => {
      for (let i = 0; i < 20; i++) if ((await w.runOnce()).claimed === 0) return
    }
    await Promise.all([drain(worker), drain(other.app.emailWorker), drain(worker), drain(other.app.emailWorker)])
    const bulk = smtp.mails.slice(before).filter((m) => m.subject === 'Hi Bulk')
    t.equal(bulk.length, 50, '50 deliveries at the SMTP server')
    t.equal(new Set(bulk.map((m) => m.text)).size, 50, 'each e-mail once')
    const rows = await app.db
      .selectFrom('emails')
      .select(['status', 'attempts'])
      .where('subject', '=', 'Hi Bulk')
      .execute()
    t.equal(rows.length, 50)
    t.ok(
      rows.every((r) => r.status === 'sent' && r.attempts === 1),
      'all sent at the first attempt',
    )
  })

  t.test('the background worker starts with the server and stops with it, finishing its batch', async (t) => {
    const live = await buildTestApp(t, dialect, {
      dbEnv: sameDatabase(ctx),
      clock,
      env: { SMTP_URL: smtp.url, EMAIL_POLL_INTERVAL_MS: '100' },
    })
    const user = await player()
    const before = smtp.mails.length
    const res = await live.call({
      method: 'POST',
      url: SEND,
      payload: { userId: user.userId, templateSlug: 'reward', language: 'en', variables: { name: 'Live', prize: 'p' } },
    })
    t.equal(res.statusCode, 201)
    await smtp.waitFor(before + 1, 5000)
    t.equal(smtp.mails[before]!.subject, 'Hi Live', 'delivered by the polling loop, no runOnce')

    smtp.delayMs = 300
    t.teardown(() => {
      smtp.delayMs = 0
    })
    const id = (
      await live.call({
        method: 'POST',
        url: SEND,
        payload: {
          userId: user.userId,
          templateSlug: 'reward',
          language: 'en',
          variables: { name: 'Closing', prize: 'p' },
        },
      })
    ).json().id
    const pass = live.app.emailWorker.runOnce()
    await new Promise((resolve) => setTimeout(resolve, 50))
    await live.app.close()
    t.match(await pass, { sent: 1 })
    t.equal((await emailRow(ctx, id)).status, 'sent', 'the pass in hand finished before the close')
  })
})
