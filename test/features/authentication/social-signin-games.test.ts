/**
 * Sign in with Apple and Google per game (contract §14): a token's audience must be one of the
 * request's game's `appleAudiences` / `googleAudiences` (the environment's unless the game set its
 * own), so a token minted for one game's app is refused in another. Google's code exchange stays the
 * environment's client. Against the local provider of test/helpers/social.ts.
 */
import t from 'tap'
import { eachDialect } from '../../helpers/app.js'
import { addGame, setSettings } from '../../helpers/second-game.js'
import {
  BUNDLE_ID,
  GOOGLE_CLIENT,
  SERVICE_ID,
  SIGNIN,
  appleClaims,
  appleKey,
  assertFailure,
  googleClaims,
  socialSetup,
  token,
  unique,
} from '../../helpers/social.js'

const B_BUNDLE = 'com.example.other-game'
const B_CLIENT = 'client-b.apps.googleusercontent.com'

eachDialect(t, async (t, dialect) => {
  const { ctx, provider, googleCode } = await socialSetup(t, dialect)
  const { call, clock } = ctx
  await ctx.app.ready()
  const b = await addGame(ctx, 'b', { settings: { appleAudiences: [B_BUNDLE], googleAudiences: [B_CLIENT] } })
  const apple = async (audience: string) => ({
    type: 'APPLE',
    appleIdentityToken: await token(appleKey, clock.now(), appleClaims(unique('apple'), { aud: audience })),
  })

  t.test('Apple: each game accepts its own audiences only', async (t) => {
    t.equal(
      (await b.call({ method: 'POST', url: SIGNIN, payload: await apple(B_BUNDLE) })).statusCode,
      201,
      'b: its own',
    )
    for (const audience of [BUNDLE_ID, SERVICE_ID]) {
      const refused = await b.call({ method: 'POST', url: SIGNIN, payload: await apple(audience) })
      assertFailure(t, refused, 401, 'INVALID_APPLE_TOKEN', 'INVALID_CREDENTIALS')
    }
    assertFailure(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: await apple(B_BUNDLE) }),
      401,
      'INVALID_APPLE_TOKEN',
      'INVALID_CREDENTIALS',
    )
    t.equal(
      (await call({ method: 'POST', url: SIGNIN, payload: await apple(BUNDLE_ID) })).statusCode,
      201,
      "default: the environment's",
    )

    // Its settings change on the next request; an empty list turns Apple sign-in off for the game only.
    await setSettings(ctx, 'b', { appleAudiences: [], googleAudiences: [B_CLIENT] })
    assertFailure(
      t,
      await b.call({ method: 'POST', url: SIGNIN, payload: await apple(B_BUNDLE) }),
      400,
      'APPLE_NOT_CONFIGURED',
      'APPLE_NOT_CONFIGURED',
    )
    t.equal((await call({ method: 'POST', url: SIGNIN, payload: await apple(BUNDLE_ID) })).statusCode, 201)
    // Left out: the environment's audiences.
    await setSettings(ctx, 'b', { googleAudiences: [B_CLIENT] })
    t.equal((await b.call({ method: 'POST', url: SIGNIN, payload: await apple(SERVICE_ID) })).statusCode, 201)
    await setSettings(ctx, 'b', { appleAudiences: [B_BUNDLE], googleAudiences: [B_CLIENT] })
  })

  t.test("Google: the id_token's audience is the game's, the exchange the environment's client", async (t) => {
    const google = async (audience: string) => ({
      type: 'GOOGLE',
      googleAuthorizationCode: await googleCode(googleClaims(unique('google'), { aud: audience })),
    })
    const exchanged = provider.exchanges.length
    t.equal(
      (await b.call({ method: 'POST', url: SIGNIN, payload: await google(B_CLIENT) })).statusCode,
      201,
      'b: its own',
    )
    t.equal(provider.exchanges[exchanged]!.client_id, GOOGLE_CLIENT, "exchanged as the environment's client")
    assertFailure(
      t,
      await b.call({ method: 'POST', url: SIGNIN, payload: await google(GOOGLE_CLIENT) }),
      401,
      'INVALID_GOOGLE_CODE',
      'INVALID_CREDENTIALS',
    )
    assertFailure(
      t,
      await call({ method: 'POST', url: SIGNIN, payload: await google(B_CLIENT) }),
      401,
      'INVALID_GOOGLE_CODE',
      'INVALID_CREDENTIALS',
    )
    t.equal((await call({ method: 'POST', url: SIGNIN, payload: await google(GOOGLE_CLIENT) })).statusCode, 201)
    await setSettings(ctx, 'b', { appleAudiences: [B_BUNDLE], googleAudiences: [] })
    assertFailure(
      t,
      await b.call({ method: 'POST', url: SIGNIN, payload: await google(B_CLIENT) }),
      400,
      'GOOGLE_NOT_CONFIGURED',
      'GOOGLE_NOT_CONFIGURED',
    )
  })
})
