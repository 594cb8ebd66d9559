import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AdminUserListSchema, AdminUserSchema, BanBodySchema } from './schemas.js'

export const user = {
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
export const banned = { ...user, banned: true, bannedAt: EX.now, banReason: 'Cheating on the speedrun board' }

export const components: NamedSchemas = {
  AdminUser: AdminUserSchema,
  AdminUserPage: AdminUserListSchema,
  BanRequest: BanBodySchema,
}

export const exported = {
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
