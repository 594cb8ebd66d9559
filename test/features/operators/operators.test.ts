import t from 'tap'
import { buildApp } from '../../../app.js'
import {
  ADMIN,
  ADMIN_KEY,
  assertError,
  buildTestApp,
  eachDialect,
  freshDatabase,
  testConfig,
  TestClock,
  type TestApp,
} from '../../helpers/app.js'
import { logLines } from '../../helpers/faults.js'
import { createUser } from '../../fixtures/users.js'
import {
  addOperator,
  consoleFor,
  CSRF,
  PASSWORD,
  sessionCookie,
  signIn,
  signInRequest,
} from '../../fixtures/operators.js'
import { FIRST_OPERATOR_HINT, FIRST_OPERATOR_HINT_WITH_KEY } from '../../../features/operators/index.js'
import { SESSION_MAX_MS } from '../../../features/operators/service.js'

// Operators: the admin API's opening, the permission map, roles, the admin key, CSRF,
// cookie flags, the last owner and the per-operator rate limit.

eachDialect(t, async (t, dialect) => {
  t.test('no admin key and no operator: the admin API is absent until the first operator exists', async (t) => {
    const log = logLines()
    const env = await freshDatabase(t, dialect)
    const clock = new TestClock()
    const app = await buildApp({
      config: testConfig({ ...env, ADMIN_API_KEY: undefined, LOG_LEVEL: 'info' }),
      clock,
      logStream: log.stream,
    })
    t.teardown(() => app.close())
    await app.ready()
    t.equal(log.matching(/npm run operator -- add NAME --role owner/).length, 1, 'the start says how to create one')
    t.equal(FIRST_OPERATOR_HINT.includes('OPERATOR_PASSWORD'), true)
    const ctx = { app, clock } as unknown as TestApp
    assertError(t, await app.inject({ method: 'GET', url: `${ADMIN}/users` }), 404, 'NOT_FOUND')
    assertError(t, await signInRequest(ctx, { username: 'root', password: PASSWORD }), 404, 'NOT_FOUND')
    assertError(
      t,
      await app.inject({ method: 'GET', url: `${ADMIN}/users`, headers: { 'x-admin-key': ADMIN_KEY } }),
      404,
      'NOT_FOUND',
    )

    // As `npm run operator -- add` does it, while the server runs: no restart needed.
    await addOperator(ctx, 'Root', 'owner')
    assertError(t, await app.inject({ method: 'GET', url: `${ADMIN}/users` }), 401, 'UNAUTHORIZED')
    assertError(
      t,
      await app.inject({ method: 'GET', url: `${ADMIN}/users`, headers: { 'x-admin-key': ADMIN_KEY } }),
      401,
      'UNAUTHORIZED',
    )
    const root = await signIn(ctx, 'root')
    const users = await root.request({ method: 'GET', url: '/users' })
    t.equal(users.statusCode, 200, 'the operator reads the admin API')
    t.same((await root.request({ method: 'GET', url: '/session' })).json(), {
      username: 'root',
      role: 'owner',
      roles: null,
      expiresAt: new Date(clock.now() + SESSION_MAX_MS).toISOString(),
    })
  })

  t.test('with ADMIN_API_KEY set, every start without an operator says how to create the first one', async (t) => {
    const env = await freshDatabase(t, dialect)
    const clock = new TestClock()
    const start = async () => {
      const log = logLines()
      const app = await buildApp({ config: testConfig({ ...env, LOG_LEVEL: 'info' }), clock, logStream: log.stream })
      t.teardown(() => app.close())
      await app.ready()
      return { app, log }
    }
    const first = await start()
    t.equal(first.log.matching(/^No operator yet/).length, 1, 'the first start')
    t.match(FIRST_OPERATOR_HINT_WITH_KEY, /npm run operator -- add NAME --role owner.*at least 12 characters/)
    t.equal(first.log.matching(/The admin API is off/).length, 0, 'the admin API is on: the key opens it')
    await first.app.close()
    const again = await start()
    t.equal(again.log.matching(/^No operator yet/).length, 1, 'a later start, still without an operator')
    await addOperator({ app: again.app, clock } as unknown as TestApp, 'Root', 'owner')
    await again.app.close()
    const after = await start()
    t.equal(after.log.matching(/npm run operator/).length, 0, 'once an operator exists, no hint')
  })

  t.test('operators, sessions and roles', async (t) => {
    const ctx = await buildTestApp(t, dialect)
    await Promise.all([
      addOperator(ctx, 'owner1', 'owner'),
      addOperator(ctx, 'mod', 'moderator'),
      addOperator(ctx, 'view', 'viewer'),
    ])
    const owner = await signIn(ctx, 'owner1')
    const mod = await signIn(ctx, 'MOD') // names are case-insensitive
    const viewer = await signIn(ctx, 'view')
    const user = await createUser(ctx)

    t.test('every admin route has a permission decided by the one map', async (t) => {
      const routes = ctx.app.adminAuth.routes
      const doc = (await ctx.app.inject({ method: 'GET', url: '/docs/json' })).json()
      const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
        .filter(([path]) => path.startsWith(ADMIN))
        .flatMap(([path, ops]) =>
          Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`),
        )
      const decided = new Set(routes.map((r) => `${r.method} ${r.url}`))
      t.ok(documented.length >= 60, `${documented.length} documented admin operations`)
      t.same(
        documented.filter((op) => !decided.has(op)),
        [],
        'every documented admin route is in the decided list',
      )
      t.same(
        routes.filter((r) => !r.access),
        [],
        'no admin route without a decision',
      )
      const fresh = await buildApp({ config: testConfig({ DB_PATH: ':memory:' }) })
      t.teardown(() => fresh.close())
      t.throws(
        () => fresh.get(`${ADMIN}/__undecided`, { schema: { tags: ['Admin', 'News'] } }, async () => ({})),
        /has no permission/,
        "a feature's documentation tag decides nothing: outside a feature's admin context, the route is refused",
      )
    })

    t.test('each role against a sample of every feature', async (t) => {
      const reads = [
        '/users',
        `/users/${user.userId}`,
        '/cosmetics',
        '/leaderboards',
        '/validated-actions/values',
        '/validated-actions/runs',
        '/remote-config',
        '/news',
        '/gift-codes',
        '/email-templates',
        '/emails',
        '/crash-reports/groups',
        '/crash-reports/stats',
        '/user-feedback',
        '/user-logs',
      ]
      for (const url of reads) {
        for (const [name, who] of [
          ['viewer', viewer],
          ['moderator', mod],
          ['owner', owner],
        ] as const) {
          t.equal((await who.request({ method: 'GET', url })).statusCode, 200, `${name} reads ${url}`)
        }
      }
      const writes: Array<{ method: 'PUT' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object }> = [
        { method: 'POST', url: `/users/${user.userId}/ban`, payload: { reason: 'test' } },
        { method: 'PUT', url: '/cosmetics/cap', payload: { type: 'avatar', name: 'Cap', locked: false } },
        { method: 'PUT', url: '/leaderboards/weekly', payload: { name: 'Weekly' } },
        { method: 'PUT', url: '/validated-actions/values/coins', payload: { maxPerRun: 10 } },
        { method: 'PUT', url: '/remote-config/motd', payload: { value: 'hello' } },
        { method: 'PUT', url: '/localization/fr/hello', payload: { value: 'bonjour' } },
        { method: 'POST', url: '/news', payload: { title: 'T', message: 'M', languageCode: 'en' } },
        { method: 'POST', url: '/gift-codes/generate', payload: { count: 1, giftData: '{}', maxRedemptions: 1 } },
      ]
      for (const write of writes) {
        assertError(t, await viewer.request(write), 403, 'FORBIDDEN')
        const done = await mod.request(write)
        t.ok(
          done.statusCode === 200 || done.statusCode === 201,
          `moderator: ${write.method} ${write.url} → ${done.statusCode}`,
        )
      }
      t.equal(
        (
          await viewer.request({
            method: 'POST',
            url: '/email-templates/none/preview',
            payload: { language: 'en', variables: {} },
          })
        ).statusCode,
        404,
        'a preview stores nothing: a viewer may ask for one (404: no such template)',
      )
      for (const who of [viewer, mod]) {
        assertError(t, await who.request({ method: 'GET', url: '/operators' }), 403, 'FORBIDDEN')
        assertError(t, await who.request({ method: 'GET', url: '/audit' }), 403, 'FORBIDDEN')
        assertError(t, await who.request({ method: 'POST', url: '/operators', payload: {} }), 403, 'FORBIDDEN')
      }
      t.equal((await owner.request({ method: 'GET', url: '/operators' })).statusCode, 200)
      t.equal((await owner.request({ method: 'GET', url: '/audit' })).statusCode, 200)
    })

    t.test('the admin key acts as an owner', async (t) => {
      t.equal((await ctx.admin({ method: 'GET', url: '/operators' })).json().items.length, 3)
      t.same((await ctx.admin({ method: 'GET', url: '/session' })).json(), {
        username: 'admin-key',
        role: 'owner',
        roles: null,
        expiresAt: null,
      })
      assertError(t, await ctx.admin({ method: 'DELETE', url: '/session' }), 403, 'FORBIDDEN')
      assertError(
        t,
        await ctx.app.inject({
          method: 'GET',
          url: `${ADMIN}/operators`,
          headers: { 'x-admin-key': 'wrong-key-0123456789' },
        }),
        401,
        'UNAUTHORIZED',
      )
    })

    t.test('a write with the cookie needs the CSRF header; reads do not', async (t) => {
      const noHeader = await owner.request({
        method: 'PUT',
        url: '/remote-config/csrf',
        payload: { value: 'x' },
        csrf: false,
      })
      assertError(t, noHeader, 403, 'FORBIDDEN')
      t.match(noHeader.json().message, /X-Requested-With: outpost-console/)
      const wrong = await owner.request({
        method: 'DELETE',
        url: '/session',
        csrf: false,
        headers: { 'x-requested-with': 'XMLHttpRequest' },
      })
      assertError(t, wrong, 403, 'FORBIDDEN')
      t.equal((await owner.request({ method: 'GET', url: '/remote-config', csrf: false })).statusCode, 200)
      t.equal(
        (await owner.request({ method: 'PUT', url: '/remote-config/csrf', payload: { value: 'x' } })).statusCode,
        200,
      )
      t.equal(
        (await ctx.admin({ method: 'PUT', url: '/remote-config/csrf', payload: { value: 'y' } })).statusCode,
        200,
        'the key needs no header',
      )
    })

    t.test('sign-in: one answer for every failure; cookie flags', async (t) => {
      const wrongPassword = await signInRequest(ctx, { username: 'view', password: 'not the password' })
      const unknownName = await signInRequest(ctx, { username: 'nobody', password: PASSWORD })
      assertError(t, wrongPassword, 401, 'INVALID_CREDENTIALS')
      t.same(unknownName.json(), wrongPassword.json(), 'an unknown name answers exactly like a wrong password')
      t.notOk(wrongPassword.headers['set-cookie'], 'no cookie on a failure')
      const ok = await signInRequest(ctx, { username: 'view', password: PASSWORD })
      t.same(ok.json(), {
        username: 'view',
        role: 'viewer',
        roles: { default: 'viewer' },
        expiresAt: new Date(ctx.clock.now() + SESSION_MAX_MS).toISOString(),
      })
      const setCookie = String(ok.headers['set-cookie'])
      t.match(setCookie, /^outpost_session=[A-Za-z0-9_-]{43};/, '32 random bytes')
      t.match(setCookie, /HttpOnly/)
      t.match(setCookie, /SameSite=Strict/)
      t.match(setCookie, /Path=\/api\/v1\/admin/)
      t.notMatch(setCookie, /Secure/, 'not Secure over plain HTTP')
      const token = sessionCookie(ok).split('=')[1]
      const stored = await ctx.app.db.selectFrom('operator_sessions').select('token_hash').execute()
      t.notOk(
        stored.some((row) => row.token_hash === token),
        'the token itself is not stored',
      )

      const proxied = await buildTestApp(t, dialect, { dbEnv: ctx.env, env: { TRUST_PROXY: '127.0.0.1' } })
      const https = await signInRequest(
        proxied,
        { username: 'view', password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      )
      t.match(String(https.headers['set-cookie']), /; Secure/, 'Secure behind a trusted HTTPS proxy')
      const untrusted = await signInRequest(
        ctx,
        { username: 'view', password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      )
      t.notMatch(
        String(untrusted.headers['set-cookie']),
        /Secure/,
        'X-Forwarded-Proto from an untrusted peer is ignored',
      )
    })

    t.test('the last owner can be neither removed nor demoted, also when two owners race', async (t) => {
      await addOperator(ctx, 'solo', 'owner')
      t.equal(
        (await ctx.admin({ method: 'DELETE', url: '/operators/owner1' })).statusCode,
        200,
        'one of two owners goes',
      )
      assertError(
        t,
        await ctx.admin({ method: 'PATCH', url: '/operators/solo', payload: { role: 'viewer' } }),
        409,
        'LAST_OWNER',
      )
      assertError(t, await ctx.admin({ method: 'DELETE', url: '/operators/solo' }), 409, 'LAST_OWNER')
      t.equal(
        (await ctx.admin({ method: 'PATCH', url: '/operators/solo', payload: { role: 'owner' } })).statusCode,
        200,
      )
      await addOperator(ctx, 'duo', 'owner')
      const created = await ctx.admin({
        method: 'POST',
        url: '/operators',
        payload: { username: 'Trio', password: 'long enough password', role: 'moderator' },
      })
      t.equal(created.statusCode, 201)
      t.match(created.json(), { username: 'trio', role: 'moderator', totpEnabled: false })
      assertError(
        t,
        await ctx.admin({
          method: 'POST',
          url: '/operators',
          payload: { username: 'TRIO', password: 'long enough password', role: 'viewer' },
        }),
        409,
        'CONFLICT',
      )
      assertError(
        t,
        await ctx.admin({
          method: 'POST',
          url: '/operators',
          payload: { username: 'x', password: 'short', role: 'viewer' },
        }),
        400,
        'VALIDATION_ERROR',
      )
      assertError(
        t,
        await ctx.admin({ method: 'PATCH', url: '/operators/trio', payload: { role: 'king' } }),
        400,
        'VALIDATION_ERROR',
      )

      for (let round = 0; round < 3; round++) {
        const [a, b] = await Promise.all([
          ctx.admin({ method: 'PATCH', url: '/operators/solo', payload: { role: 'viewer' } }),
          ctx.admin({ method: 'DELETE', url: '/operators/duo' }),
        ])
        const owners = (await ctx.admin({ method: 'GET', url: '/operators' }))
          .json()
          .items.filter((o: any) => o.role === 'owner')
        t.equal(owners.length, 1, `round ${round}: one owner left (${a.statusCode}, ${b.statusCode})`)
        t.same([a.statusCode, b.statusCode].sort(), [200, 409])
        // Back to two owners for the next round.
        if (a.statusCode === 200)
          await ctx.admin({ method: 'PATCH', url: '/operators/solo', payload: { role: 'owner' } })
        else await addOperator(ctx, 'duo', 'owner')
      }
    })
  })

  t.test('the admin rate limit counts per operator', async (t) => {
    const ctx = await buildTestApp(t, dialect, {
      env: { RATE_LIMIT_ENABLED: 'true', ADMIN_RATE_LIMIT_PER_SECOND: '3', RATE_LIMIT_BURST_SECONDS: '1' },
    })
    await addOperator(ctx, 'one', 'viewer')
    await addOperator(ctx, 'two', 'viewer')
    const one = await signIn(ctx, 'one')
    // Eight at once against a bucket of 3 (the app clock stands still: no token comes back).
    const statuses = await Promise.all(
      Array.from({ length: 8 }, async () => (await one.request({ method: 'GET', url: '/session' })).statusCode),
    )
    t.equal(statuses.filter((s) => s === 429).length, 5, `past the limit for operator one's credential: ${statuses}`)
    // Signing in counted against the IP, not against operator one.
    const two = consoleFor(ctx, sessionCookie(await signInRequest(ctx, { username: 'two', password: PASSWORD })))
    t.equal(
      (await two.request({ method: 'GET', url: '/session', headers: CSRF })).statusCode,
      200,
      'operator two has a count of their own',
    )
  })
})
