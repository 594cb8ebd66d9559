// The operator's side of validated actions: rules per board and for unbound runs, value
// definitions, audited balance adjustments, the run list and detail, evidence download, reviews.
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { AdminListQuerySchema, present } from '../../platform/schemas/common.js'
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const EvidenceBytesSchema = Type.String({ format: 'binary', description: 'The uploaded input log' })
const evidenceResponses = {
  200: { description: 'The log bytes', content: { 'application/octet-stream': { schema: EvidenceBytesSchema } } },
} as const

const validatedActionsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.put(
    '/validated-actions/rules/:boardKey',
    {
      schema: route.admin({
        summary: "Replace a board's rules (`_unbound`: unbound runs); omitted fields take defaults",
        params: RulesParamsSchema,
        body: RulesBodySchema,
        response: { 200: RulesSchema },
        errors: [404],
        docs: {
          description:
            'Replaces the rule set of a board (`_unbound`: the rules of unbound runs): omitted fields take their defaults ' +
            '(every bound and limit null = none, `stageRequired` false, `ticketTtlSeconds` 7200, `evidenceMaxBytes` 32768, ' +
            'at most 1 MiB). `susScore`/`susScorePerSecond` are soft: crossing one accepts the run but marks it `sus`. ' +
            '`evidenceTopN`: evidence is requested when an accepted run ranks in the top N. Answers every field. 404 `LEADERBOARD_NOT_FOUND`.',
          parameters: { boardKey: 'speedrun' },
          request: {
            minDurationSeconds: 30,
            minScore: 0,
            maxScore: 100000,
            maxScorePerSecond: 50,
            stages: { 'level-1': { minScore: 0, maxScore: 5000 } },
            maxRunsPerHour: 30,
            maxOpenRuns: 3,
            susScore: 90000,
            evidenceTopN: 10,
          },
          response: examples.rules,
        },
      }),
    },
    async (request) => putRules(request.db, request.params.boardKey, request.body ?? {}, app.clock.now()),
  )

  app.get(
    '/validated-actions/rules',
    {
      schema: route.admin({
        summary: 'Every stored rule set',
        querystring: AdminListQuerySchema,
        response: { 200: RulesListSchema },
        docs: {
          description: 'Every stored rule set; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { limit: 50 },
          response: page([examples.rules]),
        },
      }),
    },
    async (request) => listRules(request.db, request.query),
  )

  app.put(
    '/validated-actions/values/:key',
    {
      schema: route.admin({
        summary: 'Define a player value, or replace its definition',
        params: ValueParamsSchema,
        body: ValueBodySchema,
        response: { 200: ValueDefinitionSchema },
        docs: {
          description:
            'Defines a player value (key: 1–24 characters of `[a-z0-9._-]`), or replaces its definition: `minPerRun` and ' +
            '`maxPerRun` bound what one run may earn or spend, `dailyCap` caps credits per player and UTC day (null: none).',
          parameters: { key: 'coins' },
          request: { minPerRun: 0, maxPerRun: 250, dailyCap: 500 },
          response: examples.value,
        },
      }),
    },
    async (request) => putValue(request.db, request.params.key, request.body ?? {}, app.clock.now()),
  )

  app.get(
    '/validated-actions/values',
    {
      schema: route.admin({
        summary: 'The value definitions',
        querystring: AdminListQuerySchema,
        response: { 200: ValueListSchema },
        docs: {
          description: 'The value definitions; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { limit: 50 },
          response: page([examples.value]),
        },
      }),
    },
    async (request) => listValues(request.db, request.query),
  )

  app.post(
    '/users/:userId/values',
    {
      schema: route.admin({
        summary: "Adjust a player's balance (audited)",
        params: AdjustParamsSchema,
        body: AdjustBodySchema,
        response: { 200: AdjustmentSchema },
        errors: [404, 422],
        docs: {
          description:
            "Adjusts a player's balance by `amount` (positive or negative), audited with `reason`. 422 `UNKNOWN_VALUE_KEY` " +
            '(not defined) or `INSUFFICIENT_BALANCE` (the balance would go below 0). 404 `USER_NOT_FOUND`. Answers the audit record.',
          parameters: { userId: EX.userId },
          request: { key: 'coins', amount: 100, reason: 'Support ticket 4711' },
          response: examples.adjustment,
        },
      }),
    },
    async (request) => {
      const { key, amount, reason } = request.body
      return adjustBalance(request.db, request.params.userId, { key, amount, reason: present(reason) }, app.clock.now())
    },
  )

  app.get(
    '/users/:userId/values',
    {
      schema: route.admin({
        summary: "A player's values, as the player reads them",
        params: AdjustParamsSchema,
        response: { 200: PlayerStateSchema },
        errors: [404],
        docs: {
          description: "A player's values, as the player reads them. 404 `USER_NOT_FOUND`.",
          parameters: { userId: EX.userId },
          response: examples.state,
        },
      }),
    },
    async (request) => {
      if (!(await findUser(request.db, request.params.userId))) throw notFound('USER_NOT_FOUND', 'User not found')
      return playerState(request.db, request.params.userId, app.clock.now())
    },
  )

  app.get(
    '/validated-actions/adjustments',
    {
      schema: route.admin({
        summary: 'The audit trail of balance adjustments, newest first',
        querystring: AdjustmentListQuerySchema,
        response: { 200: AdjustmentListSchema },
        docs: {
          description:
            'The audit trail of balance adjustments, newest first, optionally of one `userId`; paged by `limit` and `cursor`.',
          parameters: { userId: EX.userId, limit: 50 },
          response: page([examples.adjustment]),
        },
      }),
    },
    async (request) => listAdjustments(request.db, request.query),
  )

  app.get(
    '/validated-actions/runs',
    {
      schema: route.admin({
        summary: 'Runs, newest first, by player, outcome and sus',
        querystring: RunListQuerySchema,
        response: { 200: AdminRunListSchema },
        docs: {
          description:
            'Runs, newest first, filtered by `userId`, `outcome` (`OPEN`, `EXPIRED`, `ACCEPTED`, `REJECTED`) and `sus`; paged by `limit` and `cursor`.',
          parameters: { outcome: 'ACCEPTED', sus: false, limit: 50 },
          response: page([examples.run]),
        },
      }),
    },
    async (request) => listRuns(request.db, request.query, app.clock.now()),
  )

  app.get(
    '/validated-actions/runs/:runId',
    {
      schema: route.admin({
        summary: 'One run: outcome, reason, duration, context, evidence, submits',
        params: RunParamsSchema,
        response: { 200: AdminRunDetailSchema },
        errors: [404],
        docs: {
          description:
            'One run: outcome and rejection reason, measured duration, context, evidence status, review, and every submit ' +
            'attempt made with its ticket. 404 `NOT_FOUND`.',
          parameters: { runId: EX.runId },
          response: {
            ...examples.run,
            submissions: [{ code: 'ACCEPTED', status: 200, at: '2026-11-20T08:19:12.000Z' }],
          },
        },
      }),
    },
    async (request) => runDetail(request.db, request.params.runId, app.clock.now()),
  )

  app.get(
    '/validated-actions/runs/:runId/evidence',
    {
      schema: route.admin({
        summary: "The run's uploaded input log",
        params: RunParamsSchema,
        response: evidenceResponses,
        errors: [404],
        docs: {
          description:
            "The run's uploaded input log, as `application/octet-stream`. 404 `NOT_FOUND` when no log was uploaded.",
          parameters: { runId: EX.runId },
          response: '(binary: the input log bytes)',
        },
      }),
    },
    async (request, reply) => {
      const log = await evidenceLog(request.db, request.params.runId)
      return (reply as FastifyReply).code(200).type('application/octet-stream').send(log)
    },
  )

  app.post(
    '/validated-actions/runs/:runId/review',
    {
      schema: route.admin({
        summary: 'Review an accepted run; REJECTED takes its score off the board',
        params: RunParamsSchema,
        body: ReviewBodySchema,
        response: { 200: AdminRunDetailSchema },
        errors: [404, 409],
        docs: {
          description:
            'Reviews an accepted run: `APPROVED` keeps it, `REJECTED` removes its score from the board. 409 `CONFLICT` when the ' +
            'run is not accepted, when approving a rejected run, or when another review raced this one. 404 `NOT_FOUND`.',
          parameters: { runId: EX.runId },
          request: { verdict: 'REJECTED' },
          response: {
            ...examples.run,
            review: { verdict: 'REJECTED', reviewedAt: EX.now, scoreRemoved: true },
            submissions: [{ code: 'ACCEPTED', status: 200, at: '2026-11-20T08:19:12.000Z' }],
          },
        },
      }),
    },
    async (request) => reviewRun(request.db, app.events, request.params.runId, request.body.verdict, app.clock.now()),
  )
}

export default validatedActionsAdmin
