import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'

/**
 * Password hashes: scrypt from node:crypto with a random 16-byte salt. The parameters are stored
 * with the hash (`scrypt$N$r$p$salt$hash`, base64url), so they can be raised later without
 * invalidating existing passwords.
 */
const PARAMS = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 32
const SALT_BYTES = 16

function derive(password: string, salt: Buffer, params: typeof PARAMS, length: number): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 128 * params.N * params.r * 2 }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, PARAMS, KEY_LENGTH)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

/** True when `password` matches `stored`; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split('$')
  if (scheme !== 'scrypt' || !saltText || !keyText) return false
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  if (![params.N, params.r, params.p].every((v) => Number.isInteger(v) && v > 0)) return false
  const expected = Buffer.from(keyText, 'base64url')
  const actual = await derive(password, Buffer.from(saltText, 'base64url'), params, expected.length)
  return timingSafeEqual(actual, expected)
}

/**
 * A hash of nothing anyone knows. Sign-in with an unknown e-mail verifies against it, so the
 * answer takes as long as with a wrong password and the two cannot be told apart.
 */
let dummy: Promise<string> | undefined
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'))
  return dummy
}
