import type { Generated, Insertable, Selectable, Updateable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** The sign-in providers an identity may come from. */
export type SocialProvider = 'apple' | 'google'

/** A sign-in provider's subject bound to a user (users feature): one user per subject. */
export interface UserIdentitiesTable {
  provider: SocialProvider
  subject: string
  user_id: string
  /** The address the provider gave when the identity was bound (null when it gave none). */
  email: string | null
  /** Apple's private relay address (`is_private_email`). */
  is_private_email: Flag
  created_at: number
}

/** A player account: anonymous, with an e-mail and password, or bound to social identities; a ban is kept on it. */
export interface UsersTable {
  id: string
  /** The user's one name: `username` and `displayName` in the API. */
  username: string
  email: string | null
  is_anonymous: Flag
  is_verified: Flag
  anonymous_token_hash: string | null
  banned_at: number | null
  ban_reason: string | null
  created_at: number
  updated_at: number
  /** E-mail accounts: `scrypt$N$r$p$salt$hash` (see platform/security/passwords.ts). */
  password_hash: string | null
  /** The e-mail trimmed and lower-cased, unique: e-mails are unique case-insensitively. */
  email_key: string | null
  /** Moved on by `lockUser`, so that the lock is a write (migration 0151); means nothing else. */
  lock_version: Generated<number>
  /** No longer used: the lockout lives in login_locks, keyed by e-mail (migration 0046). */
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    user_identities: UserIdentitiesTable
    users: UsersTable
  }
}

/** A row of users as read (less `lock_version`, which only `lockUser` writes and nothing reads). */
export type User = Omit<Selectable<UsersTable>, 'lock_version'>

/** A row of users as inserted. */
export type NewUser = Insertable<UsersTable>

/** The columns of users an update may set. */
export type UserUpdate = Updateable<UsersTable>

/** A row of user_identities as read. */
export type UserIdentity = Selectable<UserIdentitiesTable>
