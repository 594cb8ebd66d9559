import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** Compares a presented secret with the expected one in constant time (digests have equal length). */
export function secretEquals(presented: string | undefined, expected: string): boolean {
  if (typeof presented !== 'string') return false
  const a = createHash('sha256').update(presented).digest()
  const b = createHash('sha256').update(expected).digest()
  return timingSafeEqual(a, b)
}

/** Tokens are stored only as this digest: they are random, so a plain SHA-256 suffices. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A random URL-safe token with `bytes` bytes of entropy. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}
