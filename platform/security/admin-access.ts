import type { AdminRights } from '../core/features.js'
import { ADMIN_PREFIX } from '../core/paths.js'
import { allows, type Role } from './roles.js'

export { allows, type Role }

/**
 * The permission map of the admin API: what every admin route needs. Each admin route is decided
 * when it is registered (admin-auth.ts refuses to register one this map cannot decide): by the
 * rights its feature's manifest declares (roles.ts) and its method, with the few exceptions listed
 * by route below.
 */
export interface AdminAccess {
  /** The least role allowed; `any`: any credential (one's own session); `none`: no credential (sign-in). */
  role: Role | 'any' | 'none'
  /** Changes something: with the session cookie it needs the CSRF header, and it is audited. */
  write: boolean
  /** Recorded in the audit log by the request transaction (false: the route records its own entries). */
  audit: boolean
}

/** Routes whose method says the wrong thing, by `METHOD /pattern` below the admin prefix. */
export const ROUTE_RIGHTS: Readonly<Record<string, AdminAccess>> = {
  // A render of a template with sample variables: nothing is stored.
  'POST /email-templates/:slug/preview': { role: 'viewer', write: false, audit: false },
  // Sign-in needs no credential; it records its own entries (failures too, which roll nothing back).
  'POST /session': { role: 'none', write: true, audit: false },
  // One's own session, password and second factor: any signed-in operator.
  'GET /session': { role: 'any', write: false, audit: false },
  'DELETE /session': { role: 'any', write: true, audit: true },
  'PUT /session/password': { role: 'any', write: true, audit: true },
  'POST /session/totp': { role: 'any', write: true, audit: true },
  'POST /session/totp/confirm': { role: 'any', write: true, audit: true },
  // The games an operator holds a role in (an owner: all), and one of them: any role (admin-auth.ts
  // answers 404 GAME_NOT_FOUND for a game the operator holds none in). Every other games route: owners.
  'GET /games': { role: 'any', write: false, audit: false },
  'GET /games/:gameId': { role: 'viewer', write: false, audit: false },
}

const READ_METHODS = new Set(['GET', 'HEAD'])

/** The route below the admin prefix, as the map and the audit log name it: `PUT /leaderboards/:boardKey`. */
export function adminAction(method: string, url: string): string {
  const path = url.startsWith(ADMIN_PREFIX) ? url.slice(ADMIN_PREFIX.length) || '/' : url
  // Fastify registers a route with a trailing slash too (ignoreTrailingSlash): the same route.
  return `${method} ${path.length > 1 ? path.replace(/\/$/, '') : path}`
}

/** What an admin route needs, or null when the map cannot decide it (no feature's rights). */
export function decideAccess(method: string, url: string, rights: AdminRights | null): AdminAccess | null {
  const listed = ROUTE_RIGHTS[adminAction(method, url)]
  if (listed) return listed
  if (!rights) return null
  const write = !READ_METHODS.has(method)
  return { role: write ? rights.write : rights.read, write, audit: write }
}
