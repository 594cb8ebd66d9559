import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AdminUserListSchema, AdminUserSchema, BanBodySchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/user-management`
const ADMIN = `${ADMIN_PREFIX}/users`

const user = {
  userId: EX.userId,
  username: 'Ada',
  displayName: 'Ada',
  email: 'ada@example.com',
  isAnonymous: false,
  isVerified: true,
  banned: false,
  bannedAt: null,
  banReason: null,
  activeSessions: 2,
  linkedProviders: [
    {
      provider: 'google',
      subject: '108234567890123456789',
      email: 'ada@example.com',
      isPrivateRelayEmail: false,
      linkedAt: EX.earlier,
    },
  ],
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
const banned = { ...user, banned: true, bannedAt: EX.now, banReason: 'Cheating on the speedrun board' }

export const components: NamedSchemas = {
  AdminUser: AdminUserSchema,
  AdminUserPage: AdminUserListSchema,
  BanRequest: BanBodySchema,
}

const exported = {
  exportedAt: EX.now,
  account: {
    userId: EX.userId,
    username: 'Ada',
    displayName: 'Ada',
    email: 'ada@example.com',
    isAnonymous: false,
    isVerified: true,
    hasPassword: true,
    hasAnonymousToken: false,
    banned: false,
    bannedAt: null,
    banReason: null,
    createdAt: EX.earlier,
    updatedAt: EX.now,
  },
  sessions: [
    {
      sessionId: EX.id,
      familyId: EX.id,
      createdAt: EX.earlier,
      expiresAt: EX.later,
      refreshExpiresAt: null,
      refreshUsedAt: null,
      revokedAt: null,
    },
  ],
  profile: {
    avatarId: 'fox',
    frameId: null,
    badges: ['first-win'],
    customData: { title: 'Explorer' },
    createdAt: EX.earlier,
    updatedAt: EX.now,
  },
  unlocks: [{ cosmeticId: 'gold-frame', unlockedAt: EX.earlier }],
  leaderboardEntries: [
    {
      leaderboardKey: 'default',
      period: 'all',
      score: 4321,
      reachedAt: EX.now,
      hidden: false,
      metadata: null,
      createdAt: EX.earlier,
    },
  ],
  leaderboardBans: [],
  cloudSave: {
    encoding: 'base64',
    data: 'AAEC/v8=',
    sizeBytes: 5,
    version: 3,
    createdAt: EX.earlier,
    updatedAt: EX.now,
  },
  values: [{ key: 'gems', balance: 50, earnedToday: 0, earnedDay: '2026-11-22', updatedAt: EX.now }],
  valueHistory: [{ id: EX.id, key: 'gems', amount: 50, balanceAfter: 50, reason: 'support refund', createdAt: EX.now }],
  runs: [],
  giftCodeRedemptions: [{ code: 'WELCOME1', giftData: 'starter-pack', grantedUnlocks: [], redeemedAt: EX.now }],
  emails: [
    {
      id: EX.emailId,
      template: 'email-verification',
      language: 'en',
      recipient: 'ada@example.com',
      subject: 'Confirm your e-mail address',
      account: true,
      status: 'sent',
      scheduledAt: EX.earlier,
      processedAt: EX.earlier,
      createdAt: EX.earlier,
    },
  ],
  feedback: [],
  logs: [{ id: EX.id, message: 'entered level 3', type: 'INFO', errorCode: null, createdAt: EX.now }],
  crashSessions: [],
  crashReports: [],
}

export const docs: OperationDocs = {
  [`POST ${APP}/check-auth`]: {
    description:
      'Says whether a session token is valid for a user. The token comes as `Authorization: Bearer` or as `sessionToken` ' +
      'in the body (compat). 200 for every well-formed request, with `authStatus` one of `AUTHENTICATED`, `INVALID_TOKEN`, ' +
      '`TOKEN_EXPIRED`, `USER_NOT_FOUND`: an unknown user is decided first, and a valid token of another user is ' +
      '`INVALID_TOKEN`. A malformed body or a non-UUID `userId` is 400. A banned user presenting a valid token gets 403 `USER_BANNED`.',
    request: { userId: EX.userId, sessionToken: EX.accessToken },
    response: { userId: EX.userId, isAuthenticated: true, authStatus: 'AUTHENTICATED', message: 'Session is valid' },
  },
  [`POST ${APP}/change-name`]: {
    description:
      'Session required (bearer, or `sessionToken` in the body). Renames the user everywhere (profile, leaderboards): ' +
      '`newName` 1–50 characters after trimming, no control characters. 401 `SESSION_REQUIRED` without a valid session ' +
      '(with `WWW-Authenticate: Bearer`); 403 `SESSION_FORBIDDEN` when the session belongs to another user; 403 `USER_BANNED`.',
    request: { userId: EX.userId, newName: 'Ada' },
    response: { isAuthenticated: true, authStatus: 'AUTHENTICATED', userId: EX.userId, username: 'Ada' },
  },
  [`POST ${APP}/signout`]: {
    description:
      'Session required. Revokes the presented session and its refresh token; other sessions of the user (other devices) ' +
      'stay signed in. 401 `SESSION_REQUIRED` without a valid session; 403 `SESSION_FORBIDDEN` when `userId` names another user.',
    request: { userId: EX.userId },
    response: { success: true },
  },
  [`GET ${ADMIN}`]: {
    description:
      'Searches users, newest first: `query` matches an id exactly, or a name or e-mail by substring (absent: everyone). A page of at most `limit` ' +
      '(1–100, default 50) users; pass `nextCursor` as `cursor` for the next page (`null` at the end).',
    parameters: { query: 'Ada', limit: 20 },
    response: page([user]),
  },
  [`GET ${ADMIN}/{userId}`]: {
    description:
      'One user as the operator sees it: ban state, the number of active sessions and the Apple or Google accounts it ' +
      'signs in with. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: user,
  },
  [`POST ${ADMIN}/{userId}/ban`]: {
    description:
      'Bans the user from every endpoint until unbanned: each user-scoped or session request, and signing in, is 403 ' +
      '`USER_BANNED`. Sessions are not revoked, so an unban lets the player carry on. `reason` ≤ 500 characters, optional. ' +
      'Answers the stored user. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    request: { reason: 'Cheating on the speedrun board' },
    response: banned,
  },
  [`POST ${ADMIN}/{userId}/unban`]: {
    description: 'Lifts a ban (idempotent); answers the stored user. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: user,
  },
  [`POST ${ADMIN}/{userId}/revoke-sessions`]: {
    description:
      'Signs the user out on every device: every session and refresh token is revoked, so each later call that sends one ' +
      'is 401 `SESSION_REQUIRED` and a refresh is refused. The player may sign in again (a ban is what keeps them out). ' +
      'Idempotent; answers the stored user, with `activeSessions` 0. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: user,
  },
  [`DELETE ${ADMIN}/{userId}`]: {
    description:
      'Deletes the user and everything stored about them (sessions, profile, scores, saves, values, feedback, logs...) ' +
      'in one transaction. Cannot be undone. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: { userId: EX.userId, deleted: true },
  },
  [`GET ${ADMIN}/{userId}/export`]: {
    description:
      'Everything stored about one player, in one JSON document (the right of access and of portability), each part read ' +
      'from the feature that owns it: the account, sessions, profile and unlocks, leaderboard entries and board bans, the ' +
      'cloud save (text, or base64 for a save stored as bytes), values and their history, validated runs, gift-code ' +
      'redemptions, the e-mails sent to the player (no body), feedback, logs, crash sessions and reports. Secrets are left ' +
      'out: no password hash, no session, refresh, anonymous-token or ticket digest. Sent with ' +
      '`Content-Disposition: attachment`. 404 `USER_NOT_FOUND`.',
    parameters: { userId: EX.userId },
    response: exported,
  },
}
