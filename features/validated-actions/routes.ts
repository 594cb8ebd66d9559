// The app routes of validated actions: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../platform/schemas/common.js'
import { AppError } from '../../platform/core/errors.js'
import {
  EVIDENCE_MAX_BYTES_LIMIT,
  EvidenceBodySchema,
  EvidenceParamsSchema,
  EvidenceUploadedSchema,
  PlayerStateSchema,
  StartRunBodySchema,
  StartRunResponseSchema,
  StateQuerySchema,
  SubmitBodySchema,
  SubmitResultSchema,
  type StartRunBody,
  type SubmitBody,
} from './schemas.js'
import { checkEarnedAmounts, checkRunContext, startRun, submitRun } from './service.js'
import { playerState } from './values.js'
import { uploadEvidence } from './evidence.js'

const tags = ['Validated Actions']
const security = [{ apiKey: [], session: [] }]
/** Room for a base64 initial state or log of the largest evidenceMaxBytes an operator may set. */
const LARGE_BODY = Math.ceil((EVIDENCE_MAX_BYTES_LIMIT * 4) / 3) + 64 * 1024

const validatedActions: FastifyPluginAsyncTypebox = async (app) => {
  const validatedRun = app.metrics.counter('outpost_validated_runs_total')
  app.post(
    '/validated-actions/runs',
    {
      bodyLimit: LARGE_BODY,
      schema: {
        tags,
        security,
        summary: 'Start a validated run: a single-use ticket and a seed',
        body: StartRunBodySchema,
        response: { 200: StartRunResponseSchema, ...errors(400, 401, 403, 404, 413, 429) },
      },
      config: { validate: (request) => void checkRunContext((request.body as StartRunBody).context) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      startRun(app.db, {
        userId: request.body.userId,
        boardKey: present(request.body.leaderboardKey),
        context: request.body.context,
        now: app.clock.now(),
      }),
  )

  app.post(
    '/validated-actions/submit',
    {
      schema: {
        tags,
        security,
        summary: 'Submit a run: checked by the rules, then the score and values are written',
        body: SubmitBodySchema,
        response: { 200: SubmitResultSchema, ...errors(400, 401, 403, 404, 422, 429) },
      },
      config: { validate: (request) => checkEarnedAmounts((request.body as SubmitBody).earned ?? []) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      const body = request.body
      try {
        const result = await submitRun(app.db, app.events, {
          userId: body.userId,
          ticket: body.ticket,
          inputLogHash: body.inputLogHash,
          score: body.score,
          stage: present(body.stage),
          leaderboardKey: present(body.leaderboardKey),
          earned: body.earned ?? [],
          now: app.clock.now(),
        })
        validatedRun(result.sus ? 'sus' : 'accepted')
        return result
      } catch (error) {
        // A rule's refusal is a 422 with the rule's code; anything else is not a verdict on the run.
        if (error instanceof AppError && error.statusCode === 422) validatedRun('rejected')
        throw error
      }
    },
  )

  app.get(
    '/validated-actions/state',
    {
      schema: {
        tags,
        security,
        summary: "The player's values: every defined value with balance and today's credits",
        querystring: StateQuerySchema,
        response: { 200: PlayerStateSchema, ...errors(400, 401, 403, 404, 429) },
      },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => playerState(app.db, request.query.userId, app.clock.now()),
  )

  app.put(
    '/validated-actions/runs/:runId/evidence',
    {
      bodyLimit: LARGE_BODY,
      schema: {
        tags,
        security,
        summary: 'Upload the input log the server asked for',
        params: EvidenceParamsSchema,
        body: EvidenceBodySchema,
        response: { 200: EvidenceUploadedSchema, ...errors(400, 401, 403, 404, 409, 410, 413, 422, 429) },
      },
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      uploadEvidence(app.db, request.params.runId, request.body.userId, request.body.log, app.clock.now()),
  )
}

export default validatedActions
