import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AuditEntrySchema, AuditListSchema, OperatorListSchema, OperatorSchema, SessionSchema } from './schemas.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'

const ADMIN = ADMIN_PREFIX
const OWNER_ONLY = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'

const session = { username: 'ada', role: 'owner', expiresAt: EX.later }
const operator = { username: 'ada', role: 'owner', totpEnabled: true, createdAt: EX.earlier, updatedAt: EX.now }
const entry = {
  id: 1042,
  at: EX.now,
  actor: 'ada',
  actorVerified: true,
  role: 'owner',
  address: '203.0.113.7',
  requestId: '9f1c2d34-5b6a-4e7f-8a9b-0c1d2e3f4a5b',
  action: 'PUT /leaderboards/:boardKey',
  status: 200,
  target: { boardKey: 'speedrun' },
  changes: { name: 'Speedrun', sortOrder: 'asc' },
}

export const components: NamedSchemas = {
  OperatorSession: SessionSchema,
  Operator: OperatorSchema,
  OperatorList: OperatorListSchema,
  AuditEntry: AuditEntrySchema,
  AuditPage: AuditListSchema,
}

export const docs: OperationDocs = {
  [`POST ${ADMIN}/session`]: {
    description:
      'Sets the `outpost_session` cookie (HttpOnly, SameSite=Strict, Path=/api/v1/admin, Secure over HTTPS): ' +
      'it lasts 2 hours without a request and 24 hours at most. A wrong name, password or TOTP code is one ' +
      'answer: 401 INVALID_CREDENTIALS. The 10th failure for a name within 15 minutes locks it for 15 minutes: ' +
      '429 TOO_MANY_ATTEMPTS, on every instance, however many attempts arrive at once (the password of a ' +
      'locked name is not even checked). `totp` is needed once the operator has enrolled a second factor. ' +
      'Every sign-in is in the audit log, and failed ones up to 20 per client address per 15 minutes ' +
      '(their actor is the name as sent: `actorVerified: false`).',
    request: { username: 'ada', password: 'correct horse battery staple', totp: '492039' },
    response: session,
  },
  [`GET ${ADMIN}/session`]: {
    description:
      'The operator of the session cookie and their role; with X-Admin-Key, `admin-key` as owner. ' +
      '401 UNAUTHORIZED when the session is missing, expired (2 h idle, 24 h at most) or revoked.',
    response: session,
  },
  [`DELETE ${ADMIN}/session`]: {
    description:
      'Ends this session and clears its cookie. Needs X-Requested-With: outpost-console (403 FORBIDDEN ' +
      'without it). With X-Admin-Key there is no session: 403 FORBIDDEN.',
    response: { signedOut: true },
  },
  [`PUT ${ADMIN}/session/password`]: {
    description:
      'Needs the current password (a wrong one: 401 INVALID_CREDENTIALS). The new one has 12 to 1024 ' +
      'characters. Every other session of yours ends; this one stays. Needs X-Requested-With: outpost-console.',
    request: { currentPassword: 'correct horse battery staple', newPassword: 'a longer passphrase for 2027' },
    response: { changed: true, revokedSessions: 2 },
  },
  [`POST ${ADMIN}/session/totp`]: {
    description:
      'Answers a new secret and its otpauth:// URI (RFC 6238: SHA-1, 6 digits, 30 s) for an authenticator ' +
      'app. Needs `currentPassword` and, when a second factor is on, `currentCode` (a code of it, accepted ' +
      'once): a wrong one is 401 INVALID_CREDENTIALS, and counts toward the sign-in lockout of your name ' +
      '(429 TOO_MANY_ATTEMPTS). The new secret is not active until confirmed with a code ' +
      '(POST /session/totp/confirm); until then the current factor, if any, stays. Enrolling again ' +
      'replaces a pending secret. Needs X-Requested-With: outpost-console.',
    request: { currentPassword: 'correct horse battery staple', currentCode: '492039' },
    response: {
      secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
      uri: 'otpauth://totp/Outpost:ada?issuer=Outpost&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
    },
  },
  [`POST ${ADMIN}/session/totp/confirm`]: {
    description:
      'Turns the pending secret on, replacing the factor before it. A wrong code: 400 INVALID_TOTP; nothing ' +
      'pending: 409 CONFLICT. Every other session of yours ends; this one stays. From then on sign-in needs ' +
      '`totp`, and each code is accepted once. An owner resets it from the command line ' +
      "(npm run operator -- reset-totp NAME), which ends the operator's sessions.",
    request: { code: '492039' },
    response: { totpEnabled: true, revokedSessions: 1 },
  },
  [`GET ${ADMIN}/operators`]: {
    description: `Name, role and whether a second factor is on, by name. ${OWNER_ONLY}`,
    response: { items: [operator, { ...operator, username: 'grace', role: 'moderator', totpEnabled: false }] },
  },
  [`POST ${ADMIN}/operators`]: {
    description:
      `A name taken already (case-insensitively): 409 CONFLICT. The password has 12 to 1024 characters; ` +
      `the operator can change it (PUT /session/password). ${OWNER_ONLY}`,
    request: { username: 'grace', password: 'correct horse battery staple', role: 'moderator' },
    response: { ...operator, username: 'grace', role: 'moderator', totpEnabled: false },
  },
  [`PATCH ${ADMIN}/operators/{username}`]: {
    description: `The last owner cannot be demoted: 409 LAST_OWNER. Unknown name: 404 NOT_FOUND. ${OWNER_ONLY}`,
    parameters: { username: 'grace' },
    request: { role: 'viewer' },
    response: { ...operator, username: 'grace', role: 'viewer', totpEnabled: false },
  },
  [`DELETE ${ADMIN}/operators/{username}`]: {
    description: `Ends their sessions too. The last owner cannot be removed: 409 LAST_OWNER. ${OWNER_ONLY}`,
    parameters: { username: 'grace' },
    response: { username: 'grace', removed: true },
  },
  [`POST ${ADMIN}/operators/{username}/revoke-sessions`]: {
    description: `They must sign in again. ${OWNER_ONLY}`,
    parameters: { username: 'grace' },
    response: { username: 'grace', revokedSessions: 1 },
  },
  [`GET ${ADMIN}/audit`]: {
    description:
      'Every admin write (by an operator, the admin key or the command line), sign-in and failed sign-in: ' +
      'who, when, from which address, the request id, the route, its path parameters and the body with ' +
      'secrets replaced by "[redacted]". Filters: `actor`, `action` (exact), `from` (inclusive), `to` ' +
      `(exclusive); paged with \`limit\` (1-100) and \`cursor\`. ${OWNER_ONLY}`,
    parameters: { actor: 'ada', limit: 50 },
    response: page([entry]),
  },
}
