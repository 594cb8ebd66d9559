// The operator's side of validated actions: rules per board and for unbound runs, value
// definitions, audited balance adjustments, the run list and detail, evidence download, reviews.
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema, errors, present } from '../../platform/schemas/common.js'
import {
  AdjustBodySchema,
  AdjustmentListQuerySchema,
  AdjustmentListSchema,
  AdjustmentSchema,
  AdjustParamsSchema,
  AdminRunDetailSchema,
  AdminRunListSchema,
  PlayerStateSchema,
  ReviewBodySchema,
  RulesBodySchema,
  RulesListSchema,
  RulesParamsSchema,
  RulesSchema,
  RunListQuerySchema,
  RunParamsSchema,
  ValueBodySchema,
  ValueDefinitionSchema,
  ValueListSchema,
  ValueParamsSchema,
} from './schemas.js'
import { findUser } from '../users/service.js'
import { notFound } from '../../platform/core/errors.js'
import { listRules, putRules } from './rules.js'
import { adjustBalance, listAdjustments, listValues, playerState, putValue } from './values.js'
import { listRuns, reviewRun, runDetail } from './admin-service.js'
import { evidenceLog } from './evidence.js'

const EvidenceBytesSchema = Type.String({ format: 'binary', description: 'The uploaded input log' })
const evidenceResponses = {
  200: { description: 'The log bytes', content: { 'application/octet-stream': { schema: EvidenceBytesSchema } } },
  ...errors(400, 401, 404, 429),
} as const
const tags = ['Admin', 'Validated Actions']
const security = [{ adminKey: [] }]

const validatedActionsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.put(
    '/validated-actions/rules/:boardKey',
    {
      schema: {
        tags,
        security,
        summary: "Replace a board's rules (`_unbound`: unbound runs); omitted fields take defaults",
        params: RulesParamsSchema,
        body: RulesBodySchema,
        response: { 200: RulesSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => putRules(app.db, request.params.boardKey, request.body ?? {}, app.clock.now()),
  )

  app.get(
    '/validated-actions/rules',
    {
      schema: {
        tags,
        security,
        summary: 'Every stored rule set',
        querystring: AdminListQuerySchema,
        response: { 200: RulesListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listRules(app.db, request.query),
  )

  app.put(
    '/validated-actions/values/:key',
    {
      schema: {
        tags,
        security,
        summary: 'Define a player value, or replace its definition',
        params: ValueParamsSchema,
        body: ValueBodySchema,
        response: { 200: ValueDefinitionSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => putValue(app.db, request.params.key, request.body ?? {}, app.clock.now()),
  )

  app.get(
    '/validated-actions/values',
    {
      schema: {
        tags,
        security,
        summary: 'The value definitions',
        querystring: AdminListQuerySchema,
        response: { 200: ValueListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listValues(app.db, request.query),
  )

  app.post(
    '/users/:userId/values',
    {
      schema: {
        tags,
        security,
        summary: "Adjust a player's balance (audited)",
        params: AdjustParamsSchema,
        body: AdjustBodySchema,
        response: { 200: AdjustmentSchema, ...errors(400, 401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { key, amount, reason } = request.body
      return adjustBalance(app.db, request.params.userId, { key, amount, reason: present(reason) }, app.clock.now())
    },
  )

  app.get(
    '/users/:userId/values',
    {
      schema: {
        tags,
        security,
        summary: "A player's values, as the player reads them",
        params: AdjustParamsSchema,
        response: { 200: PlayerStateSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      if (!(await findUser(app.db, request.params.userId))) throw notFound('USER_NOT_FOUND', 'User not found')
      return playerState(app.db, request.params.userId, app.clock.now())
    },
  )

  app.get(
    '/validated-actions/adjustments',
    {
      schema: {
        tags,
        security,
        summary: 'The audit trail of balance adjustments, newest first',
        querystring: AdjustmentListQuerySchema,
        response: { 200: AdjustmentListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listAdjustments(app.db, request.query),
  )

  app.get(
    '/validated-actions/runs',
    {
      schema: {
        tags,
        security,
        summary: 'Runs, newest first, by player, outcome and sus',
        querystring: RunListQuerySchema,
        response: { 200: AdminRunListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listRuns(app.db, request.query, app.clock.now()),
  )

  app.get(
    '/validated-actions/runs/:runId',
    {
      schema: {
        tags,
        security,
        summary: 'One run: outcome, reason, duration, context, evidence, submits',
        params: RunParamsSchema,
        response: { 200: AdminRunDetailSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => runDetail(app.db, request.params.runId, app.clock.now()),
  )

  app.get(
    '/validated-actions/runs/:runId/evidence',
    {
      schema: {
        tags,
        security,
        summary: "The run's uploaded input log",
        params: RunParamsSchema,
        response: evidenceResponses,
      },
    },
    async (request, reply) => {
      const log = await evidenceLog(app.db, request.params.runId)
      return (reply as FastifyReply).code(200).type('application/octet-stream').send(log)
    },
  )

  app.post(
    '/validated-actions/runs/:runId/review',
    {
      schema: {
        tags,
        security,
        summary: 'Review an accepted run; REJECTED takes its score off the board',
        params: RunParamsSchema,
        body: ReviewBodySchema,
        response: { 200: AdminRunDetailSchema, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => reviewRun(app.db, app.events, request.params.runId, request.body.verdict, app.clock.now()),
  )
}

export default validatedActionsAdmin
