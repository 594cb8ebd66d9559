import type { OperatorRole } from '../../db/types.js'
import type { AdminRights } from '../core/features.js'

/**
 * The operators' roles and what each holds. No imports but types: the console bundles this module
 * as it is, so its buttons follow the same rules the admin API enforces.
 *
 * - `owner`: everything, operators, settings and the audit log included. The X-Admin-Key acts as an owner.
 * - `moderator`: reads and writes on the game's features; not operators, the audit log or settings.
 * - `viewer`: reads only.
 */
export type Role = OperatorRole
export const ROLES: readonly Role[] = ['owner', 'moderator', 'viewer']
const RANK: Readonly<Record<Role, number>> = { viewer: 1, moderator: 2, owner: 3 }

/** The game's features: everyone reads, moderators and owners change. */
export const GAME_RIGHTS: AdminRights = { read: 'viewer', write: 'moderator' }
/** Who runs the game and how it is configured: owners only. */
export const OWNER_RIGHTS: AdminRights = { read: 'owner', write: 'owner' }

/** True when `role` holds the right `needed` asks for (`any`: any credential; `none`: none at all). */
export function allows(role: Role, needed: Role | 'any' | 'none'): boolean {
  if (needed === 'none' || needed === 'any') return true
  return RANK[role] >= RANK[needed]
}
