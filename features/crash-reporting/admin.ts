// The operator's crash reporting: groups by fingerprint, their occurrences, their status
// (a resolved group that comes back in a newer version turns REGRESSED), and crash-free session rates.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminListQuerySchema, errors } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Crash Reporting']
const security = [{ adminKey: [] }]

const crashReportingAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/crash-reports/groups',
    {
      schema: {
        tags,
        security,
        summary: 'Crash groups, by last occurrence or by count, optionally of one status',
        querystring: CrashGroupListQuerySchema,
        response: { 200: CrashGroupListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listGroups(app.db, request.query),
  )

  app.get(
    '/crash-reports/groups/:groupId',
    {
      schema: {
        tags,
        security,
        summary: 'One crash group with its versions and latest occurrences',
        params: CrashGroupParamsSchema,
        response: { 200: CrashGroupDetailSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => getGroup(app.db, request.params.groupId),
  )

  app.get(
    '/crash-reports/groups/:groupId/users',
    {
      schema: {
        tags,
        security,
        summary: "The players a crash group has hit, the latest first, with each linked user's name",
        params: CrashGroupParamsSchema,
        querystring: AdminListQuerySchema,
        response: { 200: CrashGroupUserListSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => listGroupUsers(app.db, request.params.groupId, request.query),
  )

  app.patch(
    '/crash-reports/groups/:groupId',
    {
      schema: {
        tags,
        security,
        summary: 'Set a group OPEN, RESOLVED (optionally in a version) or IGNORED',
        params: CrashGroupParamsSchema,
        body: CrashGroupUpdateSchema,
        response: { 200: CrashGroupSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => updateGroup(app.db, request.params.groupId, request.body, app.clock.now()),
  )

  app.get(
    '/crash-reports/stats',
    {
      schema: {
        tags,
        security,
        summary: 'Sessions, crashed sessions and the crash-free session rate, overall or for one app version',
        querystring: CrashStatsQuerySchema,
        response: { 200: CrashStatsSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => crashStats(app.db, request.query.appVersion),
  )
}

export default crashReportingAdmin
