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

/** What stands for the hidden part of a masked URL. */
export const URL_MASK = '****'
/** A leading path segment shown by `maskUrl`: a short plain word, as the fixed paths of a service use. */
const PLAIN_SEGMENT = /^[A-Za-z][A-Za-z_-]{0,15}$/

/**
 * A URL that is a credential, as it is ever shown: its origin, the leading path segments that are
 * short plain words (`api/webhooks`, `services`: the service's fixed path), and `****` for the rest
 * of the path and any query or fragment, where the tokens are (Discord's id and token, Slack's team,
 * channel and token). The last segment is always hidden. Null when `text` is not a URL.
 */
export function maskUrl(text: string): string | null {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return null
  }
  const segments = url.pathname.split('/').filter((segment) => segment !== '')
  let shown = 0
  while (shown < segments.length - 1 && PLAIN_SEGMENT.test(segments[shown]!)) shown++
  const hidden = shown < segments.length || url.search !== '' || url.hash !== ''
  const path = segments.slice(0, shown).map((segment) => `${segment}/`)
  return `${url.protocol}//${url.host}/${path.join('')}${hidden ? URL_MASK : ''}`
}

/**
 * Tells two secret URLs apart without showing either: the first 8 hex digits of the URL's SHA-256.
 * Whoever holds a URL can compute it (`printf %s "$URL" | sha256sum | cut -c1-8`); from it alone
 * nothing of a random token can be worked out.
 */
export function urlFingerprint(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8)
}
