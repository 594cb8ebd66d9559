// The owner's side of operators: list, add, change a role, remove, end someone's
// sessions, and read the audit log. The last owner can be neither removed nor demoted.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AuditListSchema,
  AuditQuerySchema,
  OperatorCreateBodySchema,
  OperatorListSchema,
  OperatorParamsSchema,
  OperatorRemovedSchema,
  OperatorRoleBodySchema,
  OperatorSchema,
  SessionsRevokedSchema,
} from './schemas.js'
import { listAudit } from '../../platform/security/audit.js'
import { parseIsoTime } from '../../platform/core/clock.js'
import { hashPassword } from '../../platform/security/passwords.js'
import {
  createOperator,
  listOperators,
  normalizeUsername,
  removeOperator,
  revokeSessions,
  setRole,
  type GameRoles,
} from './service.js'
import { badRequest } from '../../platform/core/errors.js'
import type { GameRegistry } from '../../platform/games/registry.js'
import type { OperatorRole } from '../../db/types.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { serverWideOnly } from './server-wide.js'
import { page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const security: Array<Record<string, string[]>> = [{ adminKey: [] }, { adminSession: [] }]

const ROLES_RULE =
  'An owner holds every game (`roles` left out); another operator holds a role in each game of `roles` ' +
  '(`{ "<gameId>": "moderator" | "viewer" }`), and without `roles` its `role` in `default`. A game not on the ' +
  'server, or `roles` with the owner role: 400 VALIDATION_ERROR.'

/** `roles` as given, checked: none for an owner, and only games the server has. */
function checkedRoles(games: GameRegistry, role: OperatorRole, roles: GameRoles | undefined): GameRoles | undefined {
  if (roles === undefined) return undefined
  if (role === 'owner') throw badRequest('An owner holds every game: leave out `roles`', '/roles')
  for (const gameId of Object.keys(roles)) {
    if (!games.get(gameId)) {
      throw badRequest(`No game '${gameId}' on this server: GET /api/v1/admin/games lists them`, `/roles/${gameId}`)
    }
  }
  return roles
}

const operatorsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest, { adminSecurity: security })
  app.get(
    '/operators',
    {
      onRequest: serverWideOnly,
      schema: route.admin({
        summary: 'Every operator',
        response: { 200: OperatorListSchema },
        errors: [403, 404],
        docs: {
          description: `Name, role, roles per game and whether a second factor is on, by name. ${examples.OWNER_ONLY}`,
          response: {
            items: [examples.operator, examples.grace],
          },
        },
      }),
    },
    async () => ({ items: await listOperators(app.db) }),
  )

  app.post(
    '/operators',
    {
      onRequest: serverWideOnly,
      schema: route.admin({
        summary: 'Add an operator',
        body: OperatorCreateBodySchema,
        response: { 201: OperatorSchema },
        errors: [403, 404, 409, 503],
        docs: {
          description:
            `A name taken already (case-insensitively): 409 CONFLICT. The password has 12 to 1024 characters; ` +
            `the operator can change it (PUT /session/password). ${ROLES_RULE} ${examples.OWNER_ONLY}`,
          request: {
            username: 'grace',
            password: 'correct horse battery staple',
            role: 'moderator',
            roles: examples.grace.roles,
          },
          response: examples.grace,
        },
      }),
      preHandler: async (request) => {
        // Hashed before the request's transaction opens (a quarter second): the write then only stores it.
        request.preparedPassword = { hash: await hashPassword(request.body.password), expected: null }
      },
    },
    async (request, reply) => {
      const { username, role } = request.body
      const roles = checkedRoles(app.games, role, request.body.roles)
      const created = await createOperator(
        app.db,
        { username, role, roles, passwordHash: request.preparedPassword!.hash },
        app.clock.now(),
      )
      reply.code(201)
      return created
    },
  )

  app.patch(
    '/operators/:username',
    {
      onRequest: serverWideOnly,
      schema: route.admin({
        summary: "Change an operator's role and roles per game",
        params: OperatorParamsSchema,
        body: OperatorRoleBodySchema,
        response: { 200: OperatorSchema },
        errors: [403, 404, 409],
        docs: {
          description:
            `The last owner cannot be demoted: 409 LAST_OWNER. Unknown name: 404 NOT_FOUND. \`roles\` replaces the ` +
            `operator's roles whole. ${ROLES_RULE} ${examples.OWNER_ONLY}`,
          parameters: { username: 'grace' },
          request: { role: 'viewer', roles: { 'space-miner': 'viewer' } },
          response: { ...examples.grace, role: 'viewer', roles: { 'space-miner': 'viewer' } },
        },
      }),
    },
    async (request) => {
      const { role } = request.body
      const roles = checkedRoles(app.games, role, request.body.roles)
      return setRole(app.db, request.params.username, role, app.clock.now(), roles)
    },
  )

  app.delete(
    '/operators/:username',
    {
      onRequest: serverWideOnly,
      schema: route.admin({
        summary: 'Remove an operator',
        params: OperatorParamsSchema,
        response: { 200: OperatorRemovedSchema },
        errors: [403, 404, 409],
        docs: {
          description: `Ends their sessions too. The last owner cannot be removed: 409 LAST_OWNER. ${examples.OWNER_ONLY}`,
          parameters: { username: 'grace' },
          response: { username: 'grace', removed: true },
        },
      }),
    },
    async (request) => {
      await removeOperator(app.db, request.params.username)
      return { username: normalizeUsername(request.params.username), removed: true as const }
    },
  )

  app.post(
    '/operators/:username/revoke-sessions',
    {
      onRequest: serverWideOnly,
      schema: route.admin({
        summary: "End all of an operator's sessions",
        params: OperatorParamsSchema,
        response: { 200: SessionsRevokedSchema },
        errors: [403, 404],
        docs: {
          description: `They must sign in again. ${examples.OWNER_ONLY}`,
          parameters: { username: 'grace' },
          response: { username: 'grace', revokedSessions: 1 },
        },
      }),
    },
    async (request) => ({
      username: normalizeUsername(request.params.username),
      revokedSessions: await revokeSessions(app.db, request.params.username),
    }),
  )

  app.get(
    '/audit',
    {
      schema: route.admin({
        summary: 'The audit log, newest first',
        querystring: AuditQuerySchema,
        response: { 200: AuditListSchema },
        errors: [403, 404],
        docs: {
          description:
            'Every admin write (by an operator, the admin key or the command line), sign-in and failed sign-in: ' +
            'who, when, from which address, the request id, the route, its path parameters and the body with ' +
            'secrets replaced by "[redacted]". Filters: `actor`, `action` (exact), `from` (inclusive), `to` ' +
            `(exclusive); paged with \`limit\` (1-100) and \`cursor\`. ${examples.OWNER_ONLY}`,
          parameters: { actor: 'ada', limit: 50 },
          response: page([examples.entry]),
        },
      }),
    },
    async (request) => {
      const { actor, action, from, to, cursor, limit } = request.query
      // Under a game's prefix, that game's entries: each admin write is recorded in its game's database.
      return listAudit(request.db, {
        actor,
        action,
        from: parseIsoTime(from, 'querystring/from'),
        to: parseIsoTime(to, 'querystring/to'),
        cursor,
        limit,
      })
    },
  )
}

export default operatorsAdmin
