import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AuthResponseSchema, MessageResponseSchema } from './schemas.js'

export const auth = {
  userId: EX.userId,
  username: 'Player-4821',
  displayName: 'Player-4821',
  email: null,
  isAnonymous: true,
  isVerified: false,
  anonymousToken: EX.anonymousToken,
  accessToken: EX.accessToken,
  expiresAt: EX.later,
  refreshToken: null,
  refreshExpiresAt: null,
  authStatus: 'AUTHENTICATED',
  googleId: null,
  appleUserId: null,
  isPrivateRelayEmail: false,
  message: null,
  createdAt: EX.now,
}

export const SOCIAL =
  '- `type` `APPLE` (`appleIdentityToken`, `appleFirstName?`, `appleLastName?`, `username?`) or `GOOGLE` ' +
  '(`googleAuthorizationCode` ≤ 2000, `googleRedirectUri?`, `username?`): sign-up and sign-in take the same bodies ' +
  'and do the same thing (compat): the user bound to the Apple or Google account is found (200) or created (201), ' +
  'with `googleId` or `appleUserId` set. A Google code can be exchanged once, so the checked identity is kept 10 ' +
  'minutes: a sign-up with the code a sign-in just used succeeds. Failures carry `authStatus` and no `userId`: 400 ' +
  '`APPLE_NOT_CONFIGURED` / `GOOGLE_NOT_CONFIGURED`; 401 `INVALID_APPLE_TOKEN` / `INVALID_GOOGLE_CODE` ' +
  '(`authStatus: "INVALID_CREDENTIALS"`); 409 `APPLE_EMAIL_CONFLICT` / `USER_ALREADY_EXISTS` when the e-mail belongs ' +
  'to another account (never linked silently); 503 with `Retry-After` when the provider is unreachable (the code is ' +
  'then still unspent: retry).'

export const components: NamedSchemas = {
  AuthResponse: AuthResponseSchema,
  SuccessMessage: MessageResponseSchema,
}
