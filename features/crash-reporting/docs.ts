import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  CrashGroupDetailSchema,
  CrashGroupListSchema,
  CrashGroupSchema,
  CrashGroupUserListSchema,
  CrashOccurrenceSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/crash-reports`
const ADMIN = `${ADMIN_PREFIX}/crash-reports`
const LENIENT =
  'Ingestion is lenient, so no crash is lost: `userId` is any string ≤ 128 (`"anonymous"`, `""` and non-UUIDs are kept ' +
  'as given; a known user\'s UUID links it to the user), and missing, `null` or `""` fields are stored as `""`. A NUL ' +
  'character (U+0000) in any text or key is taken out (every other route refuses it with 400 VALIDATION_ERROR). 413 ' +
  'for a body over 256 KiB; 415 for a body that is not JSON.'
const group = {
  id: EX.groupId,
  fingerprint: 'NullReferenceException@PlayerController.Update',
  type: 'CRASH',
  message: 'Object reference not set to an instance of an object',
  status: 'OPEN',
  resolvedInVersion: null,
  occurrences: 17,
  affectedUsers: 9,
  affectedVersions: ['1.4.2', '1.4.1'],
  firstSeen: EX.earlier,
  lastSeen: EX.now,
  lastAppVersion: '1.4.2',
}

export const components: NamedSchemas = {
  CrashGroup: CrashGroupSchema,
  CrashGroupPage: CrashGroupListSchema,
  CrashGroupDetail: CrashGroupDetailSchema,
  CrashOccurrence: CrashOccurrenceSchema,
  CrashGroupUserPage: CrashGroupUserListSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP}/session`]: {
    description:
      'Registers one app run, the base of the crash-free session rate: 201 `{ status: "ok" }` for a new `sessionId`, 200 ' +
      'for one already registered (a report for an unregistered session registers it as crashed). `sessionId` over 128 ' +
      `characters is shortened. ${LENIENT}`,
    request: {
      sessionId: 'b5f0c2de-0d1e-4f5a-9c3b-7e6d5c4b3a21',
      appVersion: '1.4.2',
      platform: 'Android',
      userId: EX.userId,
    },
    response: { status: 'ok' },
  },
  [`POST ${APP}/create`]: {
    description:
      'Files a crash report (compat). Only `type` (`CRASH` | `NON_FATAL` | `ANR`) is required; a missing or wrong `type` or ' +
      'a wrongly typed field is 400. An empty `fingerprint` is derived from type, message and the top stack frames; an ' +
      'empty `sessionId` files the report under a generated session; breadcrumb timestamps are kept as given; a ' +
      'non-string `customKeys` value is kept as its JSON text. Over-long fields are truncated, not refused (`message` 8,192 ' +
      'and `stackTrace` 65,536 characters, `customKeys` 64 keys, the last 100 breadcrumbs), and the answer says ' +
      '`truncated: true`. Reports group by fingerprint; a group resolved in version V turns `REGRESSED` when a report ' +
      `comes from a newer version (compared numerically: 1.10 > 1.9). ${LENIENT}`,
    request: {
      type: 'CRASH',
      message: 'Object reference not set to an instance of an object',
      stackTrace: 'at PlayerController.Update () [0x0001a] in PlayerController.cs:42',
      fingerprint: '',
      appVersion: '1.4.2',
      sdkVersion: '2.1.0',
      platform: 'Android',
      os: 'Android 14',
      deviceModel: 'Pixel 8',
      sessionId: 'b5f0c2de-0d1e-4f5a-9c3b-7e6d5c4b3a21',
      userId: EX.userId,
      breadcrumbs: [{ timestamp: '2026-11-22T10:29:58Z', type: 'navigation', message: 'Level 3 loaded' }],
      customKeys: { level: '3' },
    },
    response: { id: EX.id, groupId: EX.groupId, createdAt: EX.now, truncated: false },
  },
  [`GET ${ADMIN}/groups`]: {
    description:
      'Crash groups, optionally of one `status` (`OPEN`, `RESOLVED`, `IGNORED`, `REGRESSED`), sorted by `sort`: ' +
      '`lastSeen` (default, newest first) or `count` (most occurrences first); paged by `limit` and `cursor`.',
    parameters: { status: 'OPEN', sort: 'count', limit: 50 },
    response: page([group]),
  },
  [`GET ${ADMIN}/groups/{groupId}`]: {
    description:
      'One crash group with its per-version counts and its latest occurrences, newest first. 404 `NOT_FOUND`.',
    parameters: { groupId: EX.groupId },
    response: {
      ...group,
      versions: [{ appVersion: '1.4.2', occurrences: 12, firstSeen: EX.earlier, lastSeen: EX.now }],
      recentOccurrences: [
        {
          id: EX.id,
          type: 'CRASH',
          message: 'Object reference not set to an instance of an object',
          stackTrace: 'at PlayerController.Update () [0x0001a] in PlayerController.cs:42',
          fingerprint: 'NullReferenceException@PlayerController.Update',
          appVersion: '1.4.2',
          sdkVersion: '2.1.0',
          platform: 'Android',
          os: 'Android 14',
          deviceModel: 'Pixel 8',
          deviceMemoryMb: 8192,
          sessionId: 'b5f0c2de-0d1e-4f5a-9c3b-7e6d5c4b3a21',
          userId: EX.userId,
          linkedUserId: EX.userId,
          breadcrumbs: [{ timestamp: '2026-11-22T10:29:58Z', type: 'navigation', message: 'Level 3 loaded' }],
          customKeys: { level: '3' },
          truncated: false,
          createdAt: EX.now,
        },
      ],
    },
  },
  [`GET ${ADMIN}/groups/{groupId}/users`]: {
    description:
      'The players a crash group has hit, one per distinct `userId` the reports sent (not `""` or `"anonymous"`), the ' +
      'latest occurrence first; paged by `limit` and `cursor`. `userKey` is the `userId` as sent; `userId` and ' +
      '`username` name the user it links to, or are null when no such user exists. 404 `NOT_FOUND` for an unknown group.',
    parameters: { groupId: EX.groupId, limit: 50 },
    response: page([
      { userKey: EX.userId, userId: EX.userId, username: 'ann', firstSeen: EX.earlier, lastSeen: EX.now },
      { userKey: 'player-7781', userId: null, username: null, firstSeen: EX.earlier, lastSeen: EX.earlier },
    ]),
  },
  [`PATCH ${ADMIN}/groups/{groupId}`]: {
    description:
      'Sets a group `OPEN`, `RESOLVED` or `IGNORED`. With `RESOLVED`, `resolvedInVersion` (optional): reports from a newer ' +
      'version turn the group `REGRESSED`; without it any new report does. 404 `NOT_FOUND`.',
    parameters: { groupId: EX.groupId },
    request: { status: 'RESOLVED', resolvedInVersion: '1.4.2' },
    response: { ...group, status: 'RESOLVED', resolvedInVersion: '1.4.2' },
  },
  [`GET ${ADMIN}/stats`]: {
    description:
      'Sessions, crashed sessions and the crash-free session rate ((sessions − crashed) / sessions, 0–1; null without ' +
      'sessions), overall or for one `appVersion`, with a line per version (newest first, at most 100).',
    parameters: { appVersion: '1.4.2' },
    response: {
      appVersion: '1.4.2',
      sessions: 1000,
      crashedSessions: 12,
      crashFreeRate: 0.988,
      versions: [{ appVersion: '1.4.2', sessions: 1000, crashedSessions: 12, crashFreeRate: 0.988 }],
    },
  },
}
