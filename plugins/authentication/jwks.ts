import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose'

/**
 * A provider's signing keys (Apple's, Google's), fetched from its JWKS URL and cached per app.
 * - cached for `maxAgeMs`, then fetched again; while the endpoint fails the cached copy is used;
 * - a token signed with a key the cache does not know makes it fetch once more (rotation), at most
 *   once per `cooldownMs`, so a flood of made-up `kid`s cannot turn into a flood of fetches;
 * - concurrent requests share one fetch, and every fetch gives up after `timeoutMs`.
 * Keys are public data: a per-process cache is enough across workers and instances.
 */
export class ProviderUnavailableError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ProviderUnavailableError'
  }
}

export interface KeySetOptions {
  url: string
  now: () => number
  timeoutMs: number
  maxAgeMs: number
  cooldownMs: number
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>

export class KeySetCache {
  private keys: LocalKeySet | undefined
  private fetchedAt = Number.NEGATIVE_INFINITY
  private attemptedAt = Number.NEGATIVE_INFINITY
  private inflight: Promise<boolean> | undefined

  constructor(private readonly options: KeySetOptions) {}

  /** The key resolver jose's jwtVerify calls with the token's header. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.options.now()
    if (!this.keys || (now - this.fetchedAt > this.options.maxAgeMs && this.mayFetch(now))) await this.refresh()
    const keys = this.keys
    if (!keys) throw new ProviderUnavailableError(`The signing keys at ${this.options.url} could not be fetched`)
    try {
      return await keys(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !this.mayFetch(this.options.now())) throw error
    }
    // A key we do not know: the provider may have rotated its keys since the last fetch.
    if (!(await this.refresh())) {
      throw new ProviderUnavailableError(`The signing keys at ${this.options.url} could not be fetched`)
    }
    return this.keys!(header, token)
  }

  private mayFetch(now: number): boolean {
    return now - this.attemptedAt >= this.options.cooldownMs
  }

  /** Fetches the keys (one fetch for all concurrent callers); true when it succeeded. */
  private refresh(): Promise<boolean> {
    this.inflight ??= this.fetchKeys().finally(() => {
      this.inflight = undefined
    })
    return this.inflight
  }

  private async fetchKeys(): Promise<boolean> {
    this.attemptedAt = this.options.now()
    try {
      const response = await fetch(this.options.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      if (!response.ok) return false
      const document = (await response.json()) as JSONWebKeySet
      // Throws on a document that is not a key set: treated like an unreachable endpoint.
      this.keys = createLocalJWKSet(document)
      this.fetchedAt = this.options.now()
      return true
    } catch {
      return false
    }
  }
}
