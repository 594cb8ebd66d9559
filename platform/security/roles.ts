/**
 * The operator roles and the two levels of rights the admin API grants, for the server's permission
 * map (security/admin-access.ts) and the browser console alike: the console greys out what the server
 * would refuse, from these same values. The console bundles this file, so it imports nothing: not even
 * db/types.ts's OperatorRole, whose file needs Node's types. A role added there and not here fails the
 * server's type check all the same (the operators' session hands its role to admin-auth as a `Role`).
 */
export const ROLES = ['owner', 'moderator', 'viewer'] as const
/** An operator's role: what the console and the admin gate rank permissions by. */
export type Role = (typeof ROLES)[number]

const RANK: Readonly<Record<Role, number>> = { viewer: 1, moderator: 2, owner: 3 }

/** The least role that may read, and the least that may write, in one area of the admin API. */
export interface Rights {
  read: Role
  write: Role
}

/** The game (players, boards, runs, content, support): every role reads, moderators and owners write. */
export const GAME_RIGHTS: Rights = { read: 'viewer', write: 'moderator' }

/** Operators, the audit log and settings: owners only. */
export const OWNER_RIGHTS: Rights = { read: 'owner', write: 'owner' }

/**
 * True when `role` holds the right `needed` asks for. `any`: any credential (one's own session);
 * `none`: no credential at all (sign-in).
 */
export function allows(role: Role, needed: Role | 'any' | 'none'): boolean {
  if (needed === 'none' || needed === 'any') return true
  return RANK[role] >= RANK[needed]
}
