import t from 'tap'
import { randomToken, secretChecker } from '../../../platform/security/secrets.js'

/**
 * The key checker compares into a scratch buffer the secret's size: every value that is not the
 * secret byte for byte and length for length is refused, whatever it shares with the secret.
 */
t.test('secretChecker takes the secret and nothing else', async (t) => {
  const secret = 'bench-api-key-0123456789'
  const isSecret = secretChecker(secret)
  t.ok(isSecret(secret))
  t.ok(isSecret([secret, 'other']), 'a repeated header: the first value counts')
  t.notOk(isSecret(undefined))
  t.notOk(isSecret([]))
  t.notOk(isSecret(''))
  t.notOk(isSecret(secret.slice(0, -1)), 'a prefix')
  t.notOk(isSecret(`${secret}x`), 'the secret and more')
  t.notOk(isSecret(`${secret}\u0000`), 'the secret and a NUL (the scratch buffer is zero-padded)')
  t.notOk(isSecret(secret.toUpperCase()))
  t.notOk(isSecret(`X${secret.slice(1)}`), 'one byte off at the start')
  // The scratch buffer is reused: a long wrong value must not leave bytes behind for the next call.
  t.notOk(isSecret('y'.repeat(100)))
  t.ok(isSecret(secret), 'still taken after a longer value')
  t.notOk(isSecret(secret.slice(0, 10)), 'a prefix after the secret itself was written')
})

t.test('secretChecker with multi-byte characters and a trailing NUL in the secret', async (t) => {
  const isSecret = secretChecker('schlüssel-ключ')
  t.ok(isSecret('schlüssel-ключ'))
  t.notOk(isSecret('schlussel-ключ'))
  t.notOk(isSecret('schlüssel-ключ-'))
  const withNul = secretChecker('abc\u0000')
  t.notOk(withNul('abc'), 'the zero padding does not stand in for a NUL the value lacks')
  t.ok(withNul('abc\u0000'))
})

t.test('randomToken: the entropy asked for, and no byte handed out twice across pool refills', async (t) => {
  t.equal(Buffer.from(randomToken(), 'base64url').length, 32, '32 bytes by default')
  t.match(randomToken(24), /^[A-Za-z0-9_-]{32}$/, '24 bytes, URL-safe')
  t.equal(Buffer.from(randomToken(5000), 'base64url').length, 5000, 'more than the pool holds')
  // 24 does not divide the pool: the rest of a pool is skipped, never split across a refill.
  const seen = new Set<string>()
  const chunks = new Set<string>()
  let repeatedChunks = 0
  for (let i = 0; i < 3000; i++) {
    const token = randomToken(i % 2 ? 24 : 32)
    seen.add(token)
    // Every 8-byte piece of every token is new: a reused stretch of the pool would repeat one.
    const bytes = Buffer.from(token, 'base64url')
    for (let at = 0; at + 8 <= bytes.length; at += 8) {
      const chunk = bytes.toString('hex', at, at + 8)
      if (chunks.has(chunk)) repeatedChunks++
      chunks.add(chunk)
    }
  }
  t.equal(seen.size, 3000, 'every token differs')
  t.equal(repeatedChunks, 0, 'no stretch of random bytes was handed out twice')
})
