import t from 'tap'
import { ADMIN_KEY, API_KEY, assertError, buildTestApp, eachDialect } from '../../helpers/app.js'
import { addOperator, signIn } from '../../fixtures/operators.js'
import { maskedSettings } from '../../../features/settings/service.js'
import { ConfigSchema } from '../../../config.js'
import { testConfig } from '../../helpers/app.js'

// GET /api/v1/admin/settings: every setting with its value, secrets masked (whether set, never
// the value), owners only.

const METRICS_TOKEN = 'metrics-token-never-shown-7Hq2'
const GOOGLE_SECRET = 'google-secret-never-shown-Lp40'
const SMTP_PASS = 'smtp-pass-never-shown-Vw93'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect, {
    env: {
      METRICS_TOKEN,
      GOOGLE_CLIENT_ID: 'outpost-test.apps.googleusercontent.com',
      GOOGLE_CLIENT_SECRET: GOOGLE_SECRET,
      SMTP_URL: `smtp://mailer:${SMTP_PASS}@127.0.0.1:2525/?pool=true&token=${SMTP_PASS}`,
      PORT: '9123',
    },
  })
  await addOperator(ctx, 'root', 'owner')
  await addOperator(ctx, 'mod', 'moderator')
  await addOperator(ctx, 'eve', 'viewer')
  const secrets = [API_KEY, ADMIN_KEY, METRICS_TOKEN, GOOGLE_SECRET, SMTP_PASS, 'mailer']

  t.test('the owner reads every setting; no secret value is anywhere in the body', async (t) => {
    const owner = await signIn(ctx, 'root')
    for (const response of [
      await owner.request({ method: 'GET', url: '/settings' }),
      await ctx.admin({ method: 'GET', url: '/settings' }),
    ]) {
      t.equal(response.statusCode, 200)
      for (const secret of secrets) t.notOk(response.body.includes(secret), `${secret} is not in the body`)
      const items = response.json().items as Array<Record<string, unknown>>
      t.same(
        items.map((s) => s.name),
        Object.keys(ConfigSchema.properties),
        'every setting, in the order of the schema',
      )
      const byName = new Map(items.map((s) => [s.name, s]))
      t.match(byName.get('API_KEY'), { value: '[set]', secret: true, set: true, isDefault: false })
      t.match(byName.get('ADMIN_API_KEY'), { value: '[set]', secret: true, set: true })
      t.match(byName.get('METRICS_TOKEN'), { value: '[set]', secret: true, set: true })
      t.match(byName.get('GOOGLE_CLIENT_SECRET'), { value: '[set]', secret: true, set: true })
      t.match(byName.get('SMTP_URL'), {
        value: 'smtp://[redacted]@127.0.0.1:2525/?pool=true&token=%5Bredacted%5D',
        secret: true,
        set: true,
      })
      t.match(byName.get('PORT'), { value: 9123, secret: false, isDefault: false })
      t.match(byName.get('RATE_LIMIT_PER_SECOND'), { value: 10, secret: false, isDefault: true })
      t.match(byName.get('CONSOLE_ENABLED'), { value: true, secret: false, isDefault: true })
      t.match(byName.get('PUBLIC_URL'), { value: 'http://localhost:8080', secret: false })
      t.match(byName.get('CONSOLE_ENABLED'), { description: /console/ })
    }
  })

  t.test('moderators and viewers get 403; a stray query parameter is 400; no key is 401', async (t) => {
    for (const name of ['mod', 'eve']) {
      const operator = await signIn(ctx, name)
      const response = await operator.request({ method: 'GET', url: '/settings' })
      assertError(t, response, 403, 'FORBIDDEN')
      for (const secret of secrets) t.notOk(response.body.includes(secret))
    }
    assertError(t, await ctx.admin({ method: 'GET', url: '/settings?show=all' }), 400, 'VALIDATION_ERROR')
    assertError(t, await ctx.app.inject({ method: 'GET', url: '/api/v1/admin/settings' }), 401, 'UNAUTHORIZED')
  })

  t.test('reading settings writes nothing to the audit log', async (t) => {
    const before = await ctx.app.db.selectFrom('audit_log').select('id').execute()
    await ctx.admin({ method: 'GET', url: '/settings' })
    const after = await ctx.app.db.selectFrom('audit_log').select('id').execute()
    t.equal(after.length, before.length)
  })
})

t.test('masking rules: secret names, URLs with credentials, unset secrets, unparseable URLs', async (t) => {
  const config = testConfig({
    DB_PASS: 'db-pass-hidden',
    REDIS_URL: 'redis://:redis-pass-hidden@cache.internal:6379/0',
    SMTP_URL: 'smtp://no password here',
    PUBLIC_URL: 'https://play.example.com/?auth=public-auth-hidden&lang=en#sig-hidden',
  })
  const byName = new Map(maskedSettings(config).map((s) => [s.name, s]))
  t.match(byName.get('DB_PASS'), { value: '[set]', secret: true, set: true })
  t.match(byName.get('REDIS_URL'), { value: 'redis://[redacted]@cache.internal:6379/0', secret: true })
  t.match(byName.get('METRICS_TOKEN'), { value: null, secret: true, set: false, isDefault: true })
  t.match(byName.get('SMTP_URL'), { value: '[set]', secret: true }, 'a URL that does not parse is masked whole')
  t.match(byName.get('GOOGLE_JWKS_URL'), { value: 'https://www.googleapis.com/oauth2/v3/certs', secret: false })
  const text = JSON.stringify([...byName.values()])
  t.notOk(text.includes('db-pass-hidden'))
  t.notOk(text.includes('redis-pass-hidden'))
  t.match(byName.get('PUBLIC_URL'), {
    value: 'https://play.example.com/?auth=%5Bredacted%5D&lang=en',
    secret: true,
  })
  t.notOk(text.includes('-hidden'), 'no hidden value anywhere')
})
