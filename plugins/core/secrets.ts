import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

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

/** A random URL-safe token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}
