// The operator's crash reporting: groups by fingerprint, their occurrences, their status
// (a resolved group that comes back in a newer version turns REGRESSED), and crash-free session rates.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminListQuerySchema } from '../../platform/schemas/common.js'
import {
  CrashGroupDetailSchema,
  CrashGroupListQuerySchema,
  CrashGroupListSchema,
  CrashGroupParamsSchema,
  CrashGroupSchema,
  CrashGroupUpdateSchema,
  CrashGroupUserListSchema,
  CrashStatsQuerySchema,
  CrashStatsSchema,
} from './schemas.js'
import { crashStats, getGroup, listGroups, listGroupUsers, updateGroup } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const crashReportingAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/crash-reports/groups',
    {
      schema: route.admin({
        summary: 'Crash groups, by last occurrence or by count, optionally of one status',
        querystring: CrashGroupListQuerySchema,
        response: { 200: CrashGroupListSchema },
        docs: {
          description:
            'Crash groups, optionally of one `status` (`OPEN`, `RESOLVED`, `IGNORED`, `REGRESSED`), sorted by `sort`: ' +
            '`lastSeen` (default, newest first) or `count` (most occurrences first); paged by `limit` and `cursor`.',
          parameters: { status: 'OPEN', sort: 'count', limit: 50 },
          response: page([examples.group]),
        },
      }),
    },
    async (request) => listGroups(request.reads, request.query),
  )

  app.get(
    '/crash-reports/groups/:groupId',
    {
      schema: route.admin({
        summary: 'One crash group with its versions and latest occurrences',
        params: CrashGroupParamsSchema,
        response: { 200: CrashGroupDetailSchema },
        errors: [404],
        docs: {
          description:
            'One crash group with its per-version counts and its latest occurrences, newest first. 404 `NOT_FOUND`.',
          parameters: { groupId: EX.groupId },
          response: {
            ...examples.group,
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
      }),
    },
    async (request) => getGroup(request.db, request.params.groupId),
  )

  app.get(
    '/crash-reports/groups/:groupId/users',
    {
      schema: route.admin({
        summary: "The players a crash group has hit, the latest first, with each linked user's name",
        params: CrashGroupParamsSchema,
        querystring: AdminListQuerySchema,
        response: { 200: CrashGroupUserListSchema },
        errors: [404],
        docs: {
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
      }),
    },
    async (request) => listGroupUsers(request.reads, request.params.groupId, request.query),
  )

  app.patch(
    '/crash-reports/groups/:groupId',
    {
      schema: route.admin({
        summary: 'Set a group OPEN, RESOLVED (optionally in a version) or IGNORED',
        params: CrashGroupParamsSchema,
        body: CrashGroupUpdateSchema,
        response: { 200: CrashGroupSchema },
        errors: [404],
        docs: {
          description:
            'Sets a group `OPEN`, `RESOLVED` or `IGNORED`. With `RESOLVED`, `resolvedInVersion` (optional): reports from a newer ' +
            'version turn the group `REGRESSED`; without it any new report does. 404 `NOT_FOUND`.',
          parameters: { groupId: EX.groupId },
          request: { status: 'RESOLVED', resolvedInVersion: '1.4.2' },
          response: { ...examples.group, status: 'RESOLVED', resolvedInVersion: '1.4.2' },
        },
      }),
    },
    async (request) => updateGroup(request.db, request.params.groupId, request.body, app.clock.now()),
  )

  app.get(
    '/crash-reports/stats',
    {
      schema: route.admin({
        summary: 'Sessions, crashed sessions and the crash-free session rate, overall or for one app version',
        querystring: CrashStatsQuerySchema,
        response: { 200: CrashStatsSchema },
        docs: {
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
      }),
    },
    async (request) => crashStats(request.reads, request.query.appVersion),
  )
}

export default crashReportingAdmin
