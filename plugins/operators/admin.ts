// The owner's side of operators (API.md §10): list, add, change a role, remove, end someone's
// sessions, and read the audit log. The last owner can be neither removed nor demoted.
import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
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
} from '../../schemas/operators.js'
import { listAudit } from '../core/audit.js'
import { parseIsoTime } from '../core/clock.js'
import { hashPassword } from '../core/passwords.js'
import { createOperator, listOperators, normalizeUsername, removeOperator, revokeSessions, setRole } from './service.js'

const tags = ['Admin', 'Operators']
const security: Array<Record<string, string[]>> = [{ adminKey: [] }, { adminSession: [] }]
const OWNER_ONLY = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'

/** New operators' password hashes, made before the request's transaction opens (a quarter second each). */
const newPasswords = new WeakMap<FastifyRequest, string>()

const operatorsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operators',
    {
      schema: {
        tags,
        security,
        summary: 'Every operator',
        description: `Name, role and whether a second factor is on, by name. ${OWNER_ONLY}`,
        response: { 200: OperatorListSchema, ...errors(401, 403, 404, 429) },
      },
    },
    async () => ({ items: await listOperators(app.db) }),
  )

  app.post(
    '/operators',
    {
      schema: {
        tags,
        security,
        summary: 'Add an operator',
        description:
          `A name taken already (case-insensitively): 409 CONFLICT. The password has 12 to 1024 characters; ` +
          `the operator can change it (PUT /session/password). ${OWNER_ONLY}`,
        body: OperatorCreateBodySchema,
        response: { 201: OperatorSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
      preHandler: async (request) => {
        newPasswords.set(request, await hashPassword(request.body.password))
      },
    },
    async (request, reply) => {
      const { username, role } = request.body
      const created = await createOperator(
        app.db,
        { username, role, passwordHash: newPasswords.get(request)! },
        app.clock.now(),
      )
      reply.code(201)
      return created
    },
  )

  app.patch(
    '/operators/:username',
    {
      schema: {
        tags,
        security,
        summary: "Change an operator's role",
        description: `The last owner cannot be demoted: 409 LAST_OWNER. Unknown name: 404 NOT_FOUND. ${OWNER_ONLY}`,
        params: OperatorParamsSchema,
        body: OperatorRoleBodySchema,
        response: { 200: OperatorSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => setRole(app.db, request.params.username, request.body.role, app.clock.now()),
  )

  app.delete(
    '/operators/:username',
    {
      schema: {
        tags,
        security,
        summary: 'Remove an operator',
        description: `Ends their sessions too. The last owner cannot be removed: 409 LAST_OWNER. ${OWNER_ONLY}`,
        params: OperatorParamsSchema,
        response: { 200: OperatorRemovedSchema, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      await removeOperator(app.db, request.params.username)
      return { username: normalizeUsername(request.params.username), removed: true as const }
    },
  )

  app.post(
    '/operators/:username/revoke-sessions',
    {
      schema: {
        tags,
        security,
        summary: "End all of an operator's sessions",
        description: `They must sign in again. ${OWNER_ONLY}`,
        params: OperatorParamsSchema,
        response: { 200: SessionsRevokedSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      username: normalizeUsername(request.params.username),
      revokedSessions: await revokeSessions(app.db, request.params.username),
    }),
  )

  app.get(
    '/audit',
    {
      schema: {
        tags,
        security,
        summary: 'The audit log, newest first',
        description:
          'Every admin write (by an operator, the admin key or the command line), sign-in and failed sign-in: ' +
          'who, when, from which address, the request id, the route, its path parameters and the body with ' +
          'secrets replaced by "[redacted]". Filters: `actor`, `action` (exact), `from` (inclusive), `to` ' +
          `(exclusive); paged with \`limit\` (1-100) and \`cursor\`. ${OWNER_ONLY}`,
        querystring: AuditQuerySchema,
        response: { 200: AuditListSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { actor, action, from, to, cursor, limit } = request.query
      return listAudit(app.db, {
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
