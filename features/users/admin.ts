// The operator's view of users: search, detail, ban/unban, delete with all their data.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { present } from '../../platform/schemas/common.js'
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const usersAdmin: FastifyPluginAsyncTypebox<{ playerExport: PlayerExport }> = async (app, { playerExport }) => {
  const route = routesOf(manifest)
  app.get(
    '/users',
    {
      schema: route.admin({
        summary: 'Search users by name, e-mail or id (newest first)',
        querystring: AdminUserSearchQuerySchema,
        response: { 200: AdminUserListSchema },
        errors: [404],
        docs: {
          description:
            'Searches users, newest first: `query` matches an id exactly, or a name or e-mail by substring (absent: everyone). A page of at most `limit` ' +
            '(1–100, default 50) users; pass `nextCursor` as `cursor` for the next page (`null` at the end).',
          parameters: { query: 'Ada', limit: 20 },
          response: page([examples.user]),
        },
      }),
    },
    async (request) => searchUsers(request.reads, request.query, app.clock.now()),
  )

  app.get(
    '/users/:userId',
    {
      schema: route.admin({
        summary: 'One user',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema },
        errors: [404],
        docs: {
          description:
            'One user as the operator sees it: ban state, the number of active sessions and the Apple or Google accounts it ' +
            'signs in with. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: examples.user,
        },
      }),
    },
    async (request) => getAdminUser(request.db, request.params.userId, app.clock.now()),
  )

  app.get(
    '/users/:userId/export',
    {
      schema: route.admin({
        summary: 'Everything stored about a player, in one JSON document',
        params: UserIdParamsSchema,
        response: { 200: playerExport.schema },
        errors: [404],
        docs: {
          description:
            'Everything stored about one player, in one JSON document (the right of access and of portability), each part read ' +
            'from the feature that owns it: the account, sessions, profile and unlocks, leaderboard entries and board bans, the ' +
            'cloud save (text, or base64 for a save stored as bytes), values and their history, validated runs, gift-code ' +
            'redemptions, the e-mails sent to the player (no body), feedback, logs, crash sessions and reports. Secrets are left ' +
            'out: no password hash, no session, refresh, anonymous-token or ticket digest. Sent with ' +
            '`Content-Disposition: attachment`. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: examples.exported,
        },
      }),
    },
    async (request, reply) => {
      const document = await exportUser(request.reads, playerExport, request.params.userId, app.clock.now())
      void reply.header('content-disposition', `attachment; filename="user-${request.params.userId}.json"`)
      return document
    },
  )

  app.post(
    '/users/:userId/ban',
    {
      schema: route.admin({
        summary: 'Ban a user from every endpoint until unbanned',
        params: UserIdParamsSchema,
        body: BanBodySchema,
        response: { 200: AdminUserSchema },
        errors: [404],
        docs: {
          description:
            'Bans the user from every endpoint until unbanned: each user-scoped or session request, and signing in, is 403 ' +
            '`USER_BANNED`. Sessions are not revoked, so an unban lets the player carry on. `reason` ≤ 500 characters, optional. ' +
            'Answers the stored user. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          request: { reason: 'Cheating on the speedrun board' },
          response: examples.banned,
        },
      }),
    },
    async (request) =>
      setBan(
        request.db,
        app.bannedPlayers.of(request.game),
        request.params.userId,
        { reason: present(request.body.reason) },
        app.clock.now(),
        app.events,
      ),
  )

  app.post(
    '/users/:userId/unban',
    {
      schema: route.admin({
        summary: 'Lift a ban',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema },
        errors: [404],
        docs: {
          description: 'Lifts a ban (idempotent); answers the stored user. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: examples.user,
        },
      }),
    },
    async (request) =>
      setBan(request.db, app.bannedPlayers.of(request.game), request.params.userId, null, app.clock.now()),
  )

  app.post(
    '/users/:userId/revoke-sessions',
    {
      schema: route.admin({
        summary: 'Sign a user out on every device',
        params: UserIdParamsSchema,
        response: { 200: AdminUserSchema },
        errors: [404],
        docs: {
          description:
            'Signs the user out on every device: every session and refresh token is revoked, so each later call that sends one ' +
            'is 401 `SESSION_REQUIRED` and a refresh is refused. The player may sign in again (a ban is what keeps them out). ' +
            'Idempotent; answers the stored user, with `activeSessions` 0. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: examples.user,
        },
      }),
    },
    async (request) => revokeUserSessions(request.db, request.params.userId, app.clock.now()),
  )

  app.delete(
    '/users/:userId',
    {
      schema: route.admin({
        summary: 'Delete a user and all their data',
        params: UserIdParamsSchema,
        response: { 200: DeletedSchema },
        errors: [404],
        docs: {
          description:
            'Deletes the user and everything stored about them (sessions, profile, scores, saves, values, feedback, logs...) ' +
            'in one transaction. Cannot be undone. 404 `USER_NOT_FOUND`.',
          parameters: { userId: EX.userId },
          response: { userId: EX.userId, deleted: true },
        },
      }),
    },
    async (request) => {
      await deleteUser(request.db, app.events, app.bannedPlayers.of(request.game), request.params.userId)
      return { userId: request.params.userId, deleted: true as const }
    },
  )
}

export default usersAdmin
