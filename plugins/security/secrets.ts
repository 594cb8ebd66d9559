import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto'

/**
 * A checker for one configured secret: compares a presented value in time that depends on the two
 * lengths, never on how many bytes of the secret it matches. The value is written into a scratch
 * buffer the secret's size (cut or zero-padded) and compared in constant time, and its byte length
 * must match too. Hashing both sides first would also hide the secret's length, at about 1 µs more
 * per request (a SHA-256 object per call) on every app request; keys are at least 16 characters
 * (config.ts), and knowing how many leaves every one of them to guess.
 */
export function secretChecker(expected: string): (presented: string | string[] | undefined) => boolean {
  const want = Buffer.from(expected, 'utf8')
  const scratch = Buffer.alloc(want.length)
  return (presented) => {
    const value = Array.isArray(presented) ? presented[0] : presented
    if (typeof value !== 'string') return false
    scratch.fill(0)
    scratch.write(value, 'utf8')
    // Both are computed before either decides, so a wrong length takes the same path as a wrong byte.
    const sameBytes = timingSafeEqual(scratch, want)
    const sameLength = Buffer.byteLength(value, 'utf8') === want.length
    return sameBytes && sameLength
  }
}

/** Tokens are stored only as this digest: they are random, so a plain SHA-256 suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/**
 * Random bytes for tokens, drawn from the CSPRNG a pool at a time: each call into it costs about
 * 1.7 µs (measured) whatever its size (4 KB cost 2.2 µs), and a sign-up draws three tokens. Node's
 * `randomUUID` keeps such a pool too. Every byte is handed out once; the pool is refilled in place
 * when the next token no longer fits, so a token's bytes stay in memory only until then.
 */
const POOL_BYTES = 4096
const pool = Buffer.alloc(POOL_BYTES)
let poolOffset = POOL_BYTES

/** A random URL-safe token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  if (bytes > POOL_BYTES) return randomFillSync(Buffer.alloc(bytes)).toString('base64url')
  if (poolOffset + bytes > POOL_BYTES) {
    randomFillSync(pool)
    poolOffset = 0
  }
  const token = pool.toString('base64url', poolOffset, poolOffset + bytes)
  poolOffset += bytes
  return token
}
