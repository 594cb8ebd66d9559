import type { FastifyRequest } from 'fastify'

/** Where the two APIs live. */
export const APP_PREFIX = '/api/v1/app'
/** The operators' API: its own prefix so a gate can tell admin from app calls by the URL alone. */
export const ADMIN_PREFIX = '/api/v1/admin'

/**
 * Which gate a request passes (the order of checks: rate limit, key, route, validation, session, existence): `app` needs X-API-Key and counts against
 * the per-IP limit, `admin` needs an admin credential and counts against the admin limit, `public`
 * (health, docs, CORS preflights) needs nothing.
 */
export type Surface = 'app' | 'admin' | 'public'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Health routes: no API key and no rate limit, even under /api/v1. */
    public?: boolean
    /** Set on every route when it is registered, from its own path pattern (see `routeSurface`). */
    surface?: Surface
  }
}

const underPrefix = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`)

/** The surface of a route, from the path pattern it was registered with (never from a request). */
export function routeSurface(pattern: string, isPublic: boolean | undefined): Surface {
  if (isPublic) return 'public'
  if (underPrefix(pattern, ADMIN_PREFIX)) return 'admin'
  return pattern.startsWith('/api/') ? 'app' : 'public'
}

const MAX_DECODE_ROUNDS = 4

/**
 * The path a request target names once every encoding trick is undone: absolute form, percent
 * escapes (repeatedly, so double encoding counts), `;` parameters, empty, `.` and `..` segments,
 * letter case. Used only for requests that matched no route, so that what an attacker writes can
 * only make a gate stricter, never skip it.
 */
export function normalizedTarget(target: string): string {
  let path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0]
  for (let round = 0; round < MAX_DECODE_ROUNDS && path.includes('%'); round++) {
    let decoded: string
    try {
      decoded = decodeURIComponent(path)
    } catch {
      decoded = path.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    }
    if (decoded === path) break
    path = decoded
  }
  const segments: string[] = []
  for (const raw of path.replace(/\\/g, '/').split('/')) {
    const segment = raw.split(';', 1)[0]
    if (segment === '' || segment === '.') continue
    if (segment === '..') segments.pop()
    else segments.push(segment)
  }
  return `/${segments.join('/')}`.toLowerCase()
}

/**
 * The surface of a request: the matched route's, or for a request that matched no route, the
 * surface of the path it would name after normalization (so the 404 comes after the same key check
 * and the same rate limit as a real route).
 */
export function surfaceOf(request: FastifyRequest): Surface {
  return request.routeOptions.config.surface ?? routeSurface(normalizedTarget(request.url), false)
}
