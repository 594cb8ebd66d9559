import t from 'tap'
import { assertError, eachDialect } from '../../helpers/app.js'
import { ISO_MS, SEND, putTemplate, setUpEmailSending } from '../../fixtures/email.js'

eachDialect(t, async (t, dialect) => {
  const { smtp, ctx, worker, player, mailsWith } = await setUpEmailSending(t, dialect)
  const { call } = ctx

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
})
