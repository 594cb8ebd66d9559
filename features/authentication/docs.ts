import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AuthResponseSchema, MessageResponseSchema } from './schemas.js'
import { APP_PREFIX } from '../../platform/core/paths.js'

const P = `${APP_PREFIX}/user-management`

const auth = {
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

const SOCIAL =
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

export const docs: OperationDocs = {
  [`POST ${P}/signup`]: {
    description:
      'Creates a user and its first session; answers with the auth response (compat: every field present, `null` ' +
      'where it does not apply; `username` and `displayName` are always equal).\n\n' +
      '- `type` `ANONYMOUS` (the default), 201: the name is `username` (compat) or `displayName` (if both, `username` ' +
      'wins), 1–50 characters after trimming, no control characters; without one a name like `Player-4821` is generated. ' +
      '`anonymousToken` is optional: a client token of 8–64 characters of `[A-Za-z0-9_-]` is used as given (409 `CONFLICT` ' +
      'if another account has it); without one the server issues a 32-character token. Store it: signing in with it ' +
      'restores the account.\n' +
      '- `type` `EMAIL`, 201: `email` (≤ 254, unique case-insensitively: 409 `USER_ALREADY_EXISTS`) and `password` ' +
      '(8–128 characters). `isVerified` starts false; with SMTP configured a verification mail (token valid 24 h) is queued.\n' +
      SOCIAL +
      '\n\n`refreshToken` is null unless `includeRefreshToken: true`. 503 `SERVICE_UNAVAILABLE` when the password hashing ' +
      'queue is full (retry later).',
    request: { type: 'ANONYMOUS', username: 'Player-4821' },
    response: auth,
    status: 201,
  },
  [`POST ${P}/signin`]: {
    description:
      'Signs in and starts a new session; 200 with the auth response.\n\n' +
      '- `{ anonymousToken }` (type `ANONYMOUS`, the default): an unknown token is 404 `USER_NOT_FOUND` with ' +
      '`authStatus: "USER_NOT_FOUND"` in the error body.\n' +
      '- `{ type: "EMAIL", email, password }`: a wrong e-mail or password is 401 `INVALID_CREDENTIALS` with ' +
      '`authStatus: "INVALID_CREDENTIALS"` (one answer for both). After 10 failures for one account within 15 minutes, ' +
      'further attempts are 429 `TOO_MANY_ATTEMPTS` for 15 minutes, the wait in `retryAfterSeconds` (no `Retry-After` ' +
      'header: the Unity and Unreal SDKs would wait it out and send the password again).\n' +
      '- `{ refreshToken }`: renews a session. The refresh token is single-use and a new one is returned; reusing a spent ' +
      'one revokes that token family. Unknown, expired, spent or revoked: 401 `SESSION_REQUIRED`.\n' +
      SOCIAL +
      '\n\nA banned user is refused with 403 `USER_BANNED`. 503 `SERVICE_UNAVAILABLE` when the password hashing queue is full.',
    request: { anonymousToken: EX.anonymousToken },
    response: auth,
  },
  [`POST ${P}/verify-email`]: {
    description:
      'Marks an e-mail account verified with the single-use token from its verification mail (valid 24 h). ' +
      'An unknown, used or expired token is 400 `INVALID_TOKEN`. Answers `{ success: true, message }` (compat).',
    request: { token: 'vT9kQ2mX7pL4sN1rW8yB3cF6hD0gJ5eA' },
    response: { success: true, message: 'E-mail verified' },
  },
  [`POST ${P}/forgot-password`]: {
    description:
      'Always 200, whether or not an account has this address (no account enumeration). When it has one and SMTP is ' +
      'configured, a reset mail with a single-use token valid 1 hour is queued.',
    request: { email: 'ada@example.com' },
    response: { success: true, message: 'If an account exists for this address, a reset e-mail is on its way' },
  },
  [`POST ${P}/reset-password`]: {
    description:
      'Sets a new password (8–128 characters) with the token from the reset mail and revokes every session of the user: ' +
      'sign in again afterwards. A bad, used or expired token is 400 `INVALID_TOKEN`. 503 `SERVICE_UNAVAILABLE` when the ' +
      'password hashing queue is full.',
    request: { token: 'rS2dF5gH8jK1lZ4xC7vB0nM3qW6eR9tY', newPassword: 'correct horse battery' },
    response: { success: true, message: 'Password changed; sign in again' },
  },
}
