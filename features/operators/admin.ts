// The owner's side of operators: list, add, change a role, remove, end someone's
// sessions, and read the audit log. The last owner can be neither removed nor demoted.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Operators']
const security: Array<Record<string, string[]>> = [{ adminKey: [] }, { adminSession: [] }]

const operatorsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operators',
    {
      schema: {
        tags,
        security,
        summary: 'Every operator',
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
        body: OperatorCreateBodySchema,
        response: { 201: OperatorSchema, ...errors(400, 401, 403, 404, 409, 429, 503) },
      },
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
      schema: {
        tags,
        security,
        summary: "Change an operator's role",
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
