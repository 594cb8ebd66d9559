import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { AppError } from '../core/errors.js'

/**
 * Password hashes: scrypt from node:crypto with a random 16-byte salt. The parameters are stored
 * with the hash (`scrypt$N$r$p$salt$hash`, base64url), so each hash is verified with its own and
 * older ones are upgraded on the next successful sign-in (`needsRehash`).
 *
 * OWASP's current minimum: N = 2^15, r = 8, p = 3. One hash holds 128·r·N = 32 MiB and takes about
 * three times as long as N = 2^15, p = 1 (the p lanes run one after the other in OpenSSL).
 */
export const PASSWORD_PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const
/** scrypt's cost parameters: N (CPU and memory), r (block size), p (parallel lanes, run one after the other). */
export type HashParams = { N: number; r: number; p: number }
type Params = HashParams

/**
 * The parameters new hashes get in this process (PASSWORD_PARAMS, which the server never changes), and
 * the dummy hash made for them when they are other ones. The test suite's own process hashes with
 * cheaper parameters (test/helpers/app.ts): its hundreds of sign-ins would otherwise spend minutes in
 * scrypt. The tests about hashing itself (its strength, the upgrade of old hashes, an unknown e-mail
 * paying for a hash) set PASSWORD_PARAMS back for their run.
 */
let inForce: { params: Params; dummy?: Promise<string> } = { params: PASSWORD_PARAMS }

/** Hashes made from now on in this process use `params` (the tests' own process only; see `inForce`). */
export function useHashParams(params: Params): void {
  inForce = { params }
}

/** The parameters new hashes get in this process now. */
export const hashParams = (): Params => inForce.params
const KEY_LENGTH = 32
const SALT_BYTES = 16
/** Stored parameters beyond these are refused rather than run: a wrong row must not cost gigabytes. */
const MAX_PARAMS: Params = { N: 2 ** 20, r: 32, p: 16 }

/**
 * Hashes running at once in this process, at most; the rest wait in line. Each holds 32 MiB for
 * about a quarter of a second, so a burst of sign-ins costs at most 2 × 32 MiB, and two of libuv's
 * four threads stay free for file and DNS work.
 */
export const MAX_CONCURRENT_HASHES = 2
/** Hashes waiting for a slot, at most; one more is refused with 503 instead of waiting for seconds. */
export const MAX_WAITING_HASHES = 64

/**
 * The bound on concurrent hashes: a counting semaphore with a bounded line. `active`, `waiting`
 * and `peak` are what an operator (or a test) can read about it.
 */
class HashSlots {
  active = 0
  peak = 0
  private readonly line: Array<() => void> = []

  constructor(
    readonly limit: number,
    readonly maxWaiting: number,
  ) {}

  get waiting(): number {
    return this.line.length
  }

  /** The highest `active` since the last reset (or start), and a fresh count from now on. */
  resetPeak(): number {
    const peak = this.peak
    this.peak = this.active
    return peak
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) {
      if (this.line.length >= this.maxWaiting) {
        throw new AppError(
          503,
          'SERVICE_UNAVAILABLE',
          'Too many sign-ins at once; try again shortly',
          {},
          { 'retry-after': '1' },
        )
      }
      // The slot is handed over by the finishing hash (`active` stays counted), so no newcomer can jump the line.
      await new Promise<void>((resolve) => this.line.push(resolve))
    } else {
      this.active++
    }
    this.peak = Math.max(this.peak, this.active)
    try {
      return await work()
    } finally {
      const next = this.line.shift()
      if (next) next()
      else this.active--
    }
  }
}

/** The process's hashing slots: scrypt is memory-hard, so unbounded parallel hashes would exhaust memory. */
export const hashSlots = new HashSlots(MAX_CONCURRENT_HASHES, MAX_WAITING_HASHES)

/**
 * OpenSSL refuses a derivation needing more than `maxmem`, counting 128·r·(N + 2) bytes for V plus
 * 128·r·p for B. Node's default (32 MiB) is just below what N = 2^15, r = 8 needs, so it is set
 * from the parameters.
 */
export const scryptMaxmem = ({ N, r, p }: Params) => 128 * r * (N + 2) + 128 * r * p

function derive(password: string, salt: Buffer, params: Params, length: number): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: scryptMaxmem(params) }
  return hashSlots.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize('NFC'), salt, length, options, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
  )
}

/** A new password's hash with today's parameters, salt and parameters in the string so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const params = inForce.params
  const { N, r, p } = params
  const key = await derive(password, salt, params, KEY_LENGTH)
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$')
}

function parse(stored: string) {
  const [scheme, n, r, p, saltText, keyText] = stored.split('$')
  if (scheme !== 'scrypt' || !saltText || !keyText) return null
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  const valid = (['N', 'r', 'p'] as const).every(
    (name) => Number.isInteger(params[name]) && params[name] > 0 && params[name] <= MAX_PARAMS[name],
  )
  // N must be a power of two above 1 (scrypt's rule).
  if (!valid || params.N < 2 || (params.N & (params.N - 1)) !== 0) return null
  return { params, salt: Buffer.from(saltText, 'base64url'), key: Buffer.from(keyText, 'base64url') }
}

/** True when `password` matches `stored`; a malformed stored value never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored)
  if (!parsed || parsed.key.length === 0) return false
  const actual = await derive(password, parsed.salt, parsed.params, parsed.key.length)
  return timingSafeEqual(actual, parsed.key)
}

/** True when `stored` was made with other parameters than today's (`params`): hash the password again. */
export function needsRehash(stored: string, params: Params = inForce.params): boolean {
  const parsed = parse(stored)
  const { N, r, p } = params
  return (
    !parsed ||
    parsed.params.N !== N ||
    parsed.params.r !== r ||
    parsed.params.p !== p ||
    parsed.key.length !== KEY_LENGTH
  )
}

/**
 * A hash of nothing anyone knows (32 random bytes, thrown away), with today's parameters: a test
 * fails when PASSWORD_PARAMS change and it is not made anew. Sign-in with an unknown e-mail or name
 * verifies against it, so the answer takes as long as with a wrong password and the two cannot be
 * told apart.
 */
export const DUMMY_HASH = 'scrypt$32768$8$3$Hgm3_nGlZQ9yrTWBVZ_RkQ$oJt0PFFQ0SqxE9Qs-LfDiu2WWECgNb9ZYoTfMYDelxA'
/**
 * Checked against when no account matches, so a sign-in for an unknown e-mail takes as long as a real
 * one: a hash with the parameters new hashes get (DUMMY_HASH, or one made once for the tests' own).
 */
export function dummyHash(): Promise<string> {
  if (!needsRehash(DUMMY_HASH)) return Promise.resolve(DUMMY_HASH)
  inForce.dummy ??= hashPassword(randomBytes(32).toString('base64url'))
  return inForce.dummy
}
