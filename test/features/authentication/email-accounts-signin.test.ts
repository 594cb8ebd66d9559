import { createHash, randomBytes, scryptSync } from 'node:crypto'
import t from 'tap'
import { assertError, eachDialect, withProductionHashes } from '../../helpers/app.js'
import { SIGNIN, createEmailUser, setUpEmailAccounts } from '../../fixtures/email.js'
import { hashSlots, MAX_CONCURRENT_HASHES, MAX_WAITING_HASHES } from '../../../platform/security/passwords.js'
import { upgradePasswordHash } from '../../../features/users/service.js'

const MINUTE = 60_000

/** The lockout's key as stored: the SHA-256 of the trimmed, lower-cased address. */
const loginKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex')

/** A hash in the format of the first release (N = 2^14, r = 8, p = 1), made here independently of the server. */
function oldFormatHash(password: string) {
  const salt = randomBytes(16)
  const key = scryptSync(password.normalize('NFC'), salt, 32, { N: 16384, r: 8, p: 1 })
  return ['scrypt', 16384, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$')
}

eachDialect(t, async (t, dialect) => {
  const { ctx } = await setUpEmailAccounts(t, dialect)
  const { call, app, clock } = ctx

  t.test('wrong password and unknown e-mail: the same 401, in about the same time', async (t) => {
    withProductionHashes(t)
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
    withProductionHashes(t)
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
    // At a third of a second a hash, the eight overlap: the bound is reached, not just kept.
    withProductionHashes(t)
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
})
