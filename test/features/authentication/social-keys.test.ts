/**
 * Sign in with Apple and Google: the providers' key caches (rotation, outages) and the settings
 * that turn the providers on, against a local key server and token endpoint (helpers/social.ts).
 */
import t from 'tap'
import { eachDialect, type TestApp } from '../../helpers/app.js'
import {
  GOOGLE_CLIENT,
  KEYS_COOLDOWN_MS,
  type KeyPair,
  SIGNIN,
  SIGNUP,
  appleClaims,
  appleKey,
  assertFailure,
  googleClaims,
  googleKey,
  rotatedKey,
  socialSetup,
  strangerKey,
  token,
  unique,
} from '../../helpers/social.js'

eachDialect(t, async (t, dialect) => {
  const { provider, fresh } = await socialSetup(t, dialect)

  t.test('keys: an unknown kid fetches the keys once more, then the rotated key works', async (t) => {
    const own = await fresh()
    const rotated = rotatedKey
    provider.appleKeys = [appleKey]
    const start = provider.appleFetches
    const signIn = async (key: KeyPair) =>
      own.call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'APPLE', appleIdentityToken: await token(key, own.clock.now(), appleClaims(unique('rot'))) },
      })
    t.equal((await signIn(appleKey)).statusCode, 201)
    t.equal((await signIn(appleKey)).statusCode, 201)
    t.equal(provider.appleFetches, start + 1, 'the keys were fetched once and cached')

    try {
      provider.appleKeys = [rotated]
      own.clock.advance(KEYS_COOLDOWN_MS)
      const res = await signIn(rotated)
      t.equal(res.statusCode, 201, 'the unknown kid made it fetch the rotated keys')
      t.equal(provider.appleFetches, start + 2)

      const stranger = strangerKey
      assertFailure(t, await signIn(stranger), 401, 'INVALID_APPLE_TOKEN', 'INVALID_CREDENTIALS')
      assertFailure(t, await signIn(stranger), 401, 'INVALID_APPLE_TOKEN', 'INVALID_CREDENTIALS')
      t.equal(provider.appleFetches, start + 2, 'unknown kids fetch at most once per 10 seconds')
      own.clock.advance(KEYS_COOLDOWN_MS)
      assertFailure(t, await signIn(stranger), 401, 'INVALID_APPLE_TOKEN', 'INVALID_CREDENTIALS')
      t.equal(provider.appleFetches, start + 3, 'and once more after')
    } finally {
      provider.appleKeys = [appleKey]
    }
  })

  t.test('keys: a burst of sign-ins on a cold cache shares one fetch', async (t) => {
    const cold = await fresh()
    const before = provider.appleFetches
    const tokens = await Promise.all(
      Array.from({ length: 5 }, () => token(appleKey, cold.clock.now(), appleClaims(unique('burst')))),
    )
    const results = await Promise.all(
      tokens.map((appleIdentityToken) =>
        cold.call({ method: 'POST', url: SIGNIN, payload: { type: 'APPLE', appleIdentityToken } }),
      ),
    )
    t.same(
      results.map((r) => r.statusCode),
      [201, 201, 201, 201, 201],
    )
    t.equal(provider.appleFetches, before + 1, 'one fetch')
  })

  t.test('keys: while the endpoint is down the cached keys are used; with none cached it is 503', async (t) => {
    const own = await fresh()
    const signIn = async (app: TestApp) =>
      app.call({
        method: 'POST',
        url: SIGNIN,
        payload: {
          type: 'APPLE',
          appleIdentityToken: await token(appleKey, app.clock.now(), appleClaims(unique('c'))),
        },
      })
    t.equal((await signIn(own)).statusCode, 201, 'keys fetched and cached')
    provider.appleDown = true
    try {
      own.clock.advance(2 * 3600_000)
      const fetches = provider.appleFetches
      t.equal((await signIn(own)).statusCode, 201, 'the stale copy is used while the endpoint fails')
      t.equal(provider.appleFetches, fetches + 1, 'after trying to refresh it')

      const cold = await fresh()
      const before = provider.appleFetches
      const res = await signIn(cold)
      assertFailure(t, res, 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
      t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After')
      assertFailure(t, await signIn(cold), 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
      t.equal(provider.appleFetches, before + 1, 'a failing endpoint is tried at most once per 10 seconds')

      // A key the cache does not know while the endpoint is down cannot be checked either way.
      own.clock.advance(KEYS_COOLDOWN_MS)
      const rotated = await own.call({
        method: 'POST',
        url: SIGNIN,
        payload: {
          type: 'APPLE',
          appleIdentityToken: await token(rotatedKey, own.clock.now(), appleClaims(unique('c'))),
        },
      })
      assertFailure(t, rotated, 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')

      const nowhere = await fresh({ ...provider.env(), APPLE_JWKS_URL: 'http://127.0.0.1:1/keys' })
      assertFailure(t, await signIn(nowhere), 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
    } finally {
      provider.appleDown = false
    }
  })

  t.test(
    'keys: Google exchanged the code but its keys are down: 503, and the retry checks the kept token',
    async (t) => {
      const own = await fresh()
      const sub = unique('kept')
      const code = `4/${unique('code')}`
      provider.codes.set(code, {
        status: 200,
        body: { id_token: await token(googleKey, own.clock.now(), googleClaims(sub)), token_type: 'Bearer' },
      })
      const exchanges = provider.exchanges.length
      provider.googleKeysDown = true
      try {
        const res = await own.call({
          method: 'POST',
          url: SIGNIN,
          payload: { type: 'GOOGLE', googleAuthorizationCode: code },
        })
        assertFailure(t, res, 503, 'SERVICE_UNAVAILABLE', 'SERVICE_UNAVAILABLE')
        t.ok(Number(res.headers['retry-after']) > 0, 'Retry-After')
        t.equal(provider.exchanges.length, exchanges + 1, 'the code was spent')
      } finally {
        provider.googleKeysDown = false
      }
      own.clock.advance(KEYS_COOLDOWN_MS)
      const retry = await own.call({
        method: 'POST',
        url: SIGNUP,
        payload: { type: 'GOOGLE', googleAuthorizationCode: code },
      })
      t.equal(retry.statusCode, 201, retry.body)
      t.equal(retry.json().googleId, sub)
      t.equal(provider.exchanges.length, exchanges + 1, 'without exchanging the code again')
    },
  )

  t.test('not configured: 400 naming the provider', async (t) => {
    const bare = await fresh({})
    for (const [payload, code] of [
      [{ type: 'APPLE', appleIdentityToken: 'x.y.z' }, 'APPLE_NOT_CONFIGURED'],
      [{ type: 'GOOGLE', googleAuthorizationCode: '4/abc' }, 'GOOGLE_NOT_CONFIGURED'],
    ] as const) {
      for (const url of [SIGNIN, SIGNUP]) {
        const body = assertFailure(t, await bare.call({ method: 'POST', url, payload }), 400, code, code)
        t.match(body.message, /not configured/)
      }
    }
    const googleOnlyId = await fresh({ GOOGLE_CLIENT_ID: GOOGLE_CLIENT })
    assertFailure(
      t,
      await googleOnlyId.call({
        method: 'POST',
        url: SIGNIN,
        payload: { type: 'GOOGLE', googleAuthorizationCode: 'c' },
      }),
      400,
      'GOOGLE_NOT_CONFIGURED',
      'GOOGLE_NOT_CONFIGURED',
    )
  })
})
