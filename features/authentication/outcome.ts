import type { Db } from '../../db/types.js'
import type { User } from '../users/service.js'
import { toIso, toIsoOrNull } from '../../platform/core/clock.js'
import type { IssuedSession, SessionLifetimes } from '../../platform/security/session-store.js'
import type { KeySetCache } from './jwks.js'
import type { GameSettings } from '../../platform/games/settings.js'
import type { AuthResponse } from './schemas.js'

/*
 * What every way of signing in is given and gives back, in a module of its own so that the service
 * and the ways it calls (e-mail, Apple, Google) share it without importing each other.
 */

/** What the sign-in service needs from its app: built once in the feature's plugin. */
export interface AppAuthDeps {
  db: Db
  now: () => number
  lifetimes: SessionLifetimes
  /** E-mail accounts: whether SMTP is configured (account mails are queued), and the base of their links. */
  email: { enabled: boolean; publicUrl: string }
  /** Sign in with Apple and Google: each provider's key cache, and Google's code exchange. */
  social: SocialSettings
}

/** What each call is given: the app's deps and the request's game's settings (its providers' audiences). */
export interface AuthDeps extends AppAuthDeps {
  /** The request's game's settings (contract §14): the audiences an Apple or Google token may carry. */
  settings: Pick<GameSettings, 'appleAudiences' | 'googleAudiences'>
}

/** An auth response and its status: 201 for an account created, 200 for one found. */
export interface AuthOutcome {
  status: 200 | 201
  body: AuthResponse
}

/**
 * Each provider's key cache, made once per app so the keys are fetched once, and Google's code
 * exchange (the environment's client: GOOGLE_CLIENT_ID's first id and GOOGLE_CLIENT_SECRET). The
 * audiences a token may carry are the request's game's (`AuthDeps.settings`).
 */
export interface SocialSettings {
  apple: { keys: KeySetCache }
  google: {
    /** The client the codes are exchanged as. */
    clientId: string
    clientSecret: string
    tokenUrl: string
    keys: KeySetCache
  }
}

/** The one auth response body every way of signing in answers with, from the user and its new session. */
export function authResponse(user: User, session: IssuedSession, anonymousToken: string | null): AuthResponse {
  return {
    userId: user.id,
    username: user.username,
    displayName: user.username,
    email: user.email,
    isAnonymous: user.is_anonymous === 1,
    isVerified: user.is_anonymous === 0 && user.is_verified === 1,
    anonymousToken,
    accessToken: session.accessToken,
    expiresAt: toIso(session.expiresAt),
    refreshToken: session.refreshToken,
    refreshExpiresAt: toIsoOrNull(session.refreshExpiresAt),
    authStatus: 'AUTHENTICATED',
    googleId: null,
    appleUserId: null,
    isPrivateRelayEmail: false,
    message: null,
    createdAt: toIso(user.created_at),
  }
}
