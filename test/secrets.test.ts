import t from 'tap'
import { secretChecker } from '../plugins/core/secrets.js'

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
