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
import { createOperator, listOperators, normalizeUsername, removeOperator, revokeSessions, setRole } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { serverWideOnly } from './server-wide.js'
import { page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const security: Array<Record<string, string[]>> = [{ adminKey: [] }, { adminSession: [] }]

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
          description: `Name, role and whether a second factor is on, by name. ${examples.OWNER_ONLY}`,
          response: {
            items: [
              examples.operator,
              { ...examples.operator, username: 'grace', role: 'moderator', totpEnabled: false },
            ],
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
            `the operator can change it (PUT /session/password). ${examples.OWNER_ONLY}`,
          request: { username: 'grace', password: 'correct horse battery staple', role: 'moderator' },
          response: { ...examples.operator, username: 'grace', role: 'moderator', totpEnabled: false },
        },
      }),
      preHandler: async (request) => {
        // Hashed before the request's transaction opens (a quarter second): the write then only stores it.
        request.preparedPassword = { hash: await hashPassword(request.body.password), expected: null }
      },
    },
    async (request, reply) => {
      const { username, role } = request.body
      const created = await createOperator(
        app.db,
        { username, role, passwordHash: request.preparedPassword!.hash },
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
        summary: "Change an operator's role",
        params: OperatorParamsSchema,
        body: OperatorRoleBodySchema,
        response: { 200: OperatorSchema },
        errors: [403, 404, 409],
        docs: {
          description: `The last owner cannot be demoted: 409 LAST_OWNER. Unknown name: 404 NOT_FOUND. ${examples.OWNER_ONLY}`,
          parameters: { username: 'grace' },
          request: { role: 'viewer' },
          response: { ...examples.operator, username: 'grace', role: 'viewer', totpEnabled: false },
        },
      }),
    },
    async (request) => setRole(app.db, request.params.username, request.body.role, app.clock.now()),
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
