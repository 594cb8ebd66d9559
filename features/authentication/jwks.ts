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

/** Where a provider's keys live and how often they may be fetched, so a flood of unknown kids cannot hammer it. */
export interface KeySetOptions {
  url: string
  now: () => number
  timeoutMs: number
  maxAgeMs: number
  cooldownMs: number
  /** Told when a fetch fails (the operator's log): sign-ins may be failing or running on old keys. */
  onFetchFailed?: (message: string) => void
}

type LocalKeySet = ReturnType<typeof createLocalJWKSet>

/** A provider's signing keys held per app: fetched again when stale or on an unknown kid, at most once per cooldown. */
export class KeySetCache {
  private keys: LocalKeySet | undefined
  private fetchedAt = Number.NEGATIVE_INFINITY
  private attemptedAt = Number.NEGATIVE_INFINITY
  private lastFetchFailed = false
  private inflight: Promise<boolean> | undefined

  constructor(private readonly options: KeySetOptions) {}

  /** The key resolver jose's jwtVerify calls with the token's header. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.options.now()
    const stale = !this.keys || now - this.fetchedAt > this.options.maxAgeMs
    // Callers that arrive during a fetch wait for it (a cold start's burst shares one fetch).
    if (this.inflight || (stale && this.mayFetch(now))) await this.refresh()
    const keys = this.keys
    if (!keys) throw this.unavailable()
    try {
      return await keys(header, token)
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error
      // A key we do not know: the provider may have rotated its keys since the last fetch.
      if (!this.inflight && !this.mayFetch(this.options.now())) {
        // Just fetched: the key is really unknown, unless that fetch failed (then it cannot be told).
        if (this.lastFetchFailed) throw this.unavailable()
        throw error
      }
    }
    if (!(await this.refresh())) throw this.unavailable()
    return this.keys!(header, token)
  }

  private unavailable() {
    return new ProviderUnavailableError(`The signing keys at ${this.options.url} could not be fetched`)
  }

  private failed(reason: string): false {
    this.lastFetchFailed = true
    const fallback = this.keys ? 'the cached keys stay in use' : 'no keys are cached: sign-ins answer 503'
    this.options.onFetchFailed?.(`Fetching the signing keys at ${this.options.url} failed (${reason}); ${fallback}`)
    return false
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
      const signal = AbortSignal.timeout(this.options.timeoutMs)
      const get = () => fetch(this.options.url, { headers: { accept: 'application/json' }, signal })
      // A kept-alive connection the server closed at the same moment fails at once: a GET is safe to
      // send again, within the same deadline.
      const response = await get().catch((error: unknown) => {
        if (signal.aborted) throw error
        return get()
      })
      if (!response.ok) return this.failed(`answered ${response.status}`)
      const document = (await response.json()) as JSONWebKeySet
      // Throws on a document that is not a key set: treated like an unreachable endpoint.
      this.keys = createLocalJWKSet(document)
      this.fetchedAt = this.options.now()
      this.lastFetchFailed = false
      return true
    } catch (error) {
      return this.failed((error as Error).message)
    }
  }
}
