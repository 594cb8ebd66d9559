// The operator's view of users: search, detail, ban/unban, delete with all their data.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../platform/schemas/common.js'
import {
  AdminUserListSchema,
  AdminUserSchema,
  AdminUserSearchQuerySchema,
  BanBodySchema,
  DeletedSchema,
  UserIdParamsSchema,
} from './schemas.js'
import { deleteUser, getAdminUser, revokeUserSessions, searchUsers, setBan } from './service.js'
import { exportUser, type PlayerExport } from './export.js'

const tags = ['Admin', 'Users']
const security = [{ adminKey: [] }]
const adminErrors = errors(400, 401, 404, 429)

const usersAdmin: FastifyPluginAsyncTypebox<{ playerExport: PlayerExport }> = async (app, { playerExport }) => {
  app.get(
    '/users',
    {
      schema: {
        tags,
        security,
        summary: 'Search users by name, e-mail or id (newest first)',
        querystring: AdminUserSearchQuerySchema,
        response: { 200: AdminUserListSchema, ...adminErrors },
      },
    },
    async (request) => searchUsers(app.db, request.query, app.clock.now()),
  )

  app.get(
    '/users/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'One user',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema, ...adminErrors },
      },
    },
    async (request) => getAdminUser(app.db, request.params.userId, app.clock.now()),
  )

  app.get(
    '/users/:userId/export',
    {
      schema: {
        tags,
        security,
        summary: 'Everything stored about a player, in one JSON document',
        params: UserIdParamsSchema,
        response: { 200: playerExport.schema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const document = await exportUser(app.db, playerExport, request.params.userId, app.clock.now())
      void reply.header('content-disposition', `attachment; filename="user-${request.params.userId}.json"`)
      return document
    },
  )

  app.post(
    '/users/:userId/ban',
    {
      schema: {
        tags,
        security,
        summary: 'Ban a user from every endpoint until unbanned',
        params: UserIdParamsSchema,
        body: BanBodySchema,
        response: { 200: AdminUserSchema, ...adminErrors },
      },
    },
    async (request) =>
      setBan(
        app.db,
        app.bannedPlayers,
        request.params.userId,
        { reason: present(request.body.reason) },
        app.clock.now(),
        app.events,
      ),
  )

  app.post(
    '/users/:userId/unban',
    {
      schema: {
        tags,
        security,
        summary: 'Lift a ban',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema, ...adminErrors },
      },
    },
    async (request) => setBan(app.db, app.bannedPlayers, request.params.userId, null, app.clock.now()),
  )

  app.post(
    '/users/:userId/revoke-sessions',
    {
      schema: {
        tags,
        security,
        summary: 'Sign a user out on every device',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema, ...adminErrors },
      },
    },
    async (request) => revokeUserSessions(app.db, request.params.userId, app.clock.now()),
  )

  app.delete(
    '/users/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'Delete a user and all their data',
        params: UserIdParamsSchema,
        response: { 200: DeletedSchema, ...adminErrors },
      },
    },
    async (request) => {
      await deleteUser(app.db, app.events, app.bannedPlayers, request.params.userId)
      return { userId: request.params.userId, deleted: true as const }
    },
  )
}

export default usersAdmin
