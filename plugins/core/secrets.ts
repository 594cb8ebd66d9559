import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * A checker for one configured secret: compares presented values in constant time (both sides are
 * hashed to equal length first). The expected digest is computed once, not on every request.
 */
export function secretChecker(expected: string): (presented: string | string[] | undefined) => boolean {
  const want = createHash('sha256').update(expected).digest()
  return (presented) => {
    const value = Array.isArray(presented) ? presented[0] : presented
    if (typeof value !== 'string') return false
    return timingSafeEqual(createHash('sha256').update(value).digest(), want)
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
