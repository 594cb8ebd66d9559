// The app routes of validated actions: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { present } from '../../platform/schemas/common.js'
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const security = [{ apiKey: [], session: [] }]
/** Room for a base64 initial state or log of the largest evidenceMaxBytes an operator may set. */
const LARGE_BODY = Math.ceil((EVIDENCE_MAX_BYTES_LIMIT * 4) / 3) + 64 * 1024

const validatedActions: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  const validatedRun = app.metrics.counter('outpost_validated_runs_total')
  app.post(
    '/validated-actions/runs',
    {
      bodyLimit: LARGE_BODY,
      schema: route.app({
        security,
        summary: 'Start a validated run: a single-use ticket and a seed',
        body: StartRunBodySchema,
        response: { 200: StartRunResponseSchema },
        errors: [403, 404, 413],
        docs: {
          description:
            `${examples.SESSION} Starts a validated run on \`leaderboardKey\` (or an unbound run without one): a single-use \`ticket\` ` +
            "(opaque; stored hashed) and a random `seed` (0 … 2^31−1) for the game's deterministic randomness. The server times " +
            "the run itself from `issuedAt`; the ticket expires after the rules' `ticketTtlSeconds` (default 7200). `context` is " +
            'optional and stored with the run: version strings (≤ 64 printable ASCII), `contentDigest` (64 hex) and `initialState` ' +
            '(standard base64: malformed → 400 `INITIAL_STATE_INVALID_ENCODING`, decoded over `evidenceMaxBytes` → 413 ' +
            '`INITIAL_STATE_TOO_LARGE`). 404 `LEADERBOARD_NOT_FOUND`; 403 `PLAYER_BANNED`; 429 `RUN_RATE_LIMITED` (with ' +
            '`Retry-After`) over `maxRunsPerHour`, 429 `RUN_CAPACITY_REACHED` over `maxOpenRuns` open runs — both carry a `code` ' +
            'and are not transient limits.',
          request: {
            userId: EX.userId,
            leaderboardKey: 'speedrun',
            context: { gameVersion: '1.4.2', simulationVersion: '3' },
          },
          response: {
            runId: EX.runId,
            ticket: 'vt_4mQ9xL2pR7sK1wN8bT3yF6cH0dJ5gA',
            seed: 1804289383,
            leaderboardKey: 'speedrun',
            issuedAt: EX.now,
            expiresAt: '2026-11-22T12:30:00.000Z',
            expiresInSeconds: 7200,
          },
        },
      }),
      config: { validate: (request) => void checkRunContext((request.body as StartRunBody).context) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      startRun(request.db, {
        userId: request.body.userId,
        boardKey: present(request.body.leaderboardKey),
        context: request.body.context,
        now: app.clock.now(),
      }),
  )

  app.post(
    '/validated-actions/submit',
    {
      schema: route.app({
        security,
        summary: 'Submit a run: checked by the rules, then the score and values are written',
        body: SubmitBodySchema,
        response: { 200: SubmitResultSchema },
        errors: [403, 404, 422],
        docs: {
          description:
            `${examples.SESSION} Submits a run: the score, the SHA-256 of the input log (64 hex, any case), an optional \`stage\` and ` +
            "`earned` values (≤ 64; `amount` ≠ 0: positive credits, negative spends; a credit is clamped by the value's daily cap). " +
            'One real attempt per ticket. Checks, in order — those marked *kept* leave the ticket usable, every later one consumes it: ' +
            '422 `TICKET_INVALID` *kept*, `TICKET_FOREIGN` *kept*, `TICKET_CONSUMED`, `TICKET_EXPIRED`; 422 `LEADERBOARD_MISMATCH` ' +
            '*kept*; 403 `PLAYER_BANNED` *kept*; 403 `SCORE_LIMIT_REACHED` (`maxAcceptedRunsPerDay`); 422 `STAGE_REQUIRED`, ' +
            '`STAGE_UNKNOWN`, `STAGE_SCORE_ABOVE_MAX`, `STAGE_SCORE_BELOW_MIN`; 422 `DURATION_TOO_SHORT`, `SCORE_ABOVE_MAX`, ' +
            '`SCORE_BELOW_MIN`, `SCORE_RATE_TOO_HIGH`; 422 `UNKNOWN_VALUE_KEY`, `DUPLICATE_VALUE_KEY`, `EARNED_ABOVE_MAX`, ' +
            '`EARNED_BELOW_MIN`, `INSUFFICIENT_BALANCE`. Rejections carry `runId` in the error body (all but `TICKET_INVALID`). ' +
            "Accepted: the score is written under the board's strategy (a `validatedOnly` board accepts it) and the values change, " +
            "in one transaction. `rank`/`bestScore` are the player's after the run (null for an unbound run); `state` is null " +
            'unless `earned` was sent; `evidence` asks for the input log (upload it before `uploadBefore`); `sus` marks a run ' +
            'that crossed a soft threshold and awaits review.',
          request: {
            userId: EX.userId,
            ticket: 'vt_4mQ9xL2pR7sK1wN8bT3yF6cH0dJ5gA',
            inputLogHash: examples.HASH,
            score: 4200,
            stage: 'level-1',
            earned: [{ key: 'coins', amount: 250 }],
          },
          response: {
            accepted: true,
            runId: EX.runId,
            leaderboardKey: 'speedrun',
            score: 4200,
            bestScore: 4200,
            isNewHighScore: true,
            rank: 3,
            durationSeconds: 252,
            state: {
              userId: EX.userId,
              day: '2026-11-22',
              values: [{ key: 'coins', balance: 1350, earnedToday: 500, dailyCap: 500, requested: 250, credited: 150 }],
            },
            evidence: { required: true, runId: EX.runId, uploadBefore: '2026-11-23T10:30:00.000Z', maxBytes: 32768 },
            sus: false,
          },
        },
      }),
      config: { validate: (request) => checkEarnedAmounts((request.body as SubmitBody).earned ?? []) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => {
      const body = request.body
      try {
        const result = await submitRun(request.db, app.events, {
          userId: body.userId,
          ticket: body.ticket,
          inputLogHash: body.inputLogHash,
          score: body.score,
          stage: present(body.stage),
          leaderboardKey: present(body.leaderboardKey),
          earned: body.earned ?? [],
          now: app.clock.now(),
        })
        validatedRun(result.sus ? 'sus' : 'accepted', request.game.id)
        return result
      } catch (error) {
        // A rule's refusal is a 422 with the rule's code; anything else is not a verdict on the run.
        if (error instanceof AppError && error.statusCode === 422) validatedRun('rejected', request.game.id)
        throw error
      }
    },
  )

  app.get(
    '/validated-actions/state',
    {
      schema: route.app({
        security,
        summary: "The player's values: every defined value with balance and today's credits",
        querystring: StateQuerySchema,
        response: { 200: PlayerStateSchema },
        errors: [403, 404],
        docs: {
          description:
            `${examples.SESSION} The player's values: every defined value, zero balances included, with the balance (0 … 2^53−1), ` +
            'what was earned on the UTC day `day` (`YYYY-MM-DD`) and the daily cap (null: none).',
          parameters: { userId: EX.userId },
          response: examples.state,
        },
      }),
      preHandler: app.auth.sessionRequired,
    },
    async (request) => playerState(request.db, request.query.userId, app.clock.now()),
  )

  app.put(
    '/validated-actions/runs/:runId/evidence',
    {
      bodyLimit: LARGE_BODY,
      schema: route.app({
        security,
        summary: 'Upload the input log the server asked for',
        params: EvidenceParamsSchema,
        body: EvidenceBodySchema,
        response: { 200: EvidenceUploadedSchema },
        errors: [403, 404, 409, 410, 413, 422],
        docs: {
          description:
            `${examples.SESSION} Uploads the input log the submit answer asked for, as standard base64. 404 \`EVIDENCE_NOT_REQUESTED\` ` +
            "(no request for this run and player; also a `runId` that is not a UUID, as the SDKs' own tests expect); 400 `EVIDENCE_INVALID_ENCODING`; 413 `EVIDENCE_TOO_LARGE` (decoded over " +
            "`maxBytes`); 422 `EVIDENCE_HASH_MISMATCH` (its SHA-256 is not the run's `inputLogHash`; the request stays open " +
            'until `uploadBefore`); 409 `EVIDENCE_ALREADY_UPLOADED`; 410 `EVIDENCE_EXPIRED`.',
          parameters: { runId: EX.runId },
          request: { userId: EX.userId, log: 'AAECAwQFBgcICQ==' },
          response: { runId: EX.runId, status: 'UPLOADED', bytes: 10 },
        },
      }),
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      uploadEvidence(request.db, request.params.runId, request.body.userId, request.body.log, app.clock.now()),
  )
}

export default validatedActions
