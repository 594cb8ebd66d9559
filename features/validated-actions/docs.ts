import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  AdjustmentListSchema,
  AdjustmentSchema,
  AdminRunDetailSchema,
  AdminRunListSchema,
  AdminRunSchema,
  EvidenceRequestSchema,
  PlayerStateSchema,
  RulesListSchema,
  RulesSchema,
  SubmitResultSchema,
  ValueDefinitionSchema,
  ValueListSchema,
  ValueStateSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = `${APP_PREFIX}/validated-actions`
const ADMIN = ADMIN_PREFIX
const HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'

const SESSION =
  "Session required: a bearer token of the body's or query's `userId` (401 `SESSION_REQUIRED`, 403 `SESSION_FORBIDDEN`, " +
  '403 `USER_BANNED`; 404 `USER_NOT_FOUND` for an unknown user).'

const state = {
  userId: EX.userId,
  day: '2026-11-22',
  values: [{ key: 'coins', balance: 1350, earnedToday: 150, dailyCap: 500 }],
}
const rules = {
  boardKey: 'speedrun',
  minDurationSeconds: 30,
  minScore: 0,
  maxScore: 100000,
  maxScorePerSecond: 50,
  stages: { 'level-1': { minScore: 0, maxScore: 5000 } },
  stageRequired: false,
  ticketTtlSeconds: 7200,
  maxRunsPerHour: 30,
  maxOpenRuns: 3,
  maxAcceptedRunsPerDay: null,
  susScore: 90000,
  susScorePerSecond: null,
  evidenceTopN: 10,
  evidenceMaxBytes: 32768,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
const value = { key: 'coins', minPerRun: 0, maxPerRun: 250, dailyCap: 500, createdAt: EX.earlier, updatedAt: EX.now }
const adjustment = {
  adjustmentId: EX.id,
  userId: EX.userId,
  key: 'coins',
  amount: 100,
  balance: 1450,
  reason: 'Support ticket 4711',
  createdAt: EX.now,
}
const run = {
  runId: EX.runId,
  userId: EX.userId,
  leaderboardKey: 'speedrun',
  seed: 1804289383,
  issuedAt: EX.earlier,
  expiresAt: '2026-11-20T10:15:00.000Z',
  submittedAt: '2026-11-20T08:19:12.000Z',
  outcome: 'ACCEPTED',
  reason: null,
  score: 4200,
  stage: 'level-1',
  inputLogHash: HASH,
  durationSeconds: 252,
  durationMs: 252000,
  bestScore: 4200,
  rank: 3,
  earned: [{ key: 'coins', requested: 250, credited: 150 }],
  sus: false,
  susReasons: [],
  context: {
    gameVersion: '1.4.2',
    contentVersion: '2026.11',
    simulationVersion: '3',
    replayFormatVersion: '1',
    contentDigest: null,
    initialStateBytes: null,
  },
  evidence: {
    status: 'UPLOADED',
    uploadBefore: '2026-11-21T08:19:12.000Z',
    maxBytes: 32768,
    bytes: 5120,
    uploadedAt: EX.now,
  },
  review: { verdict: null, reviewedAt: null, scoreRemoved: false },
}

export const components: NamedSchemas = {
  PlayerValues: PlayerStateSchema,
  ValueState: ValueStateSchema,
  EvidenceRequest: EvidenceRequestSchema,
  ValidatedRunResult: SubmitResultSchema,
  ValidatedRules: RulesSchema,
  ValidatedRulesPage: RulesListSchema,
  ValueDefinition: ValueDefinitionSchema,
  ValueDefinitionPage: ValueListSchema,
  BalanceAdjustment: AdjustmentSchema,
  BalanceAdjustmentPage: AdjustmentListSchema,
  ValidatedRun: AdminRunSchema,
  ValidatedRunDetail: AdminRunDetailSchema,
  ValidatedRunPage: AdminRunListSchema,
  RunEarnedValue: AdminRunSchema.properties.earned.anyOf[0].items,
  RunContextRecord: AdminRunSchema.properties.context,
  RunEvidenceStatus: AdminRunSchema.properties.evidence,
  RunReview: AdminRunSchema.properties.review,
}

export const docs: OperationDocs = {
  [`POST ${APP}/runs`]: {
    description:
      `${SESSION} Starts a validated run on \`leaderboardKey\` (or an unbound run without one): a single-use \`ticket\` ` +
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
  [`POST ${APP}/submit`]: {
    description:
      `${SESSION} Submits a run: the score, the SHA-256 of the input log (64 hex, any case), an optional \`stage\` and ` +
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
      inputLogHash: HASH,
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
  [`GET ${APP}/state`]: {
    description:
      `${SESSION} The player's values: every defined value, zero balances included, with the balance (0 … 2^53−1), ` +
      'what was earned on the UTC day `day` (`YYYY-MM-DD`) and the daily cap (null: none).',
    parameters: { userId: EX.userId },
    response: state,
  },
  [`PUT ${APP}/runs/{runId}/evidence`]: {
    description:
      `${SESSION} Uploads the input log the submit answer asked for, as standard base64. 404 \`EVIDENCE_NOT_REQUESTED\` ` +
      "(no request for this run and player; also a `runId` that is not a UUID, as the SDKs' own tests expect); 400 `EVIDENCE_INVALID_ENCODING`; 413 `EVIDENCE_TOO_LARGE` (decoded over " +
      "`maxBytes`); 422 `EVIDENCE_HASH_MISMATCH` (its SHA-256 is not the run's `inputLogHash`; the request stays open " +
      'until `uploadBefore`); 409 `EVIDENCE_ALREADY_UPLOADED`; 410 `EVIDENCE_EXPIRED`.',
    parameters: { runId: EX.runId },
    request: { userId: EX.userId, log: 'AAECAwQFBgcICQ==' },
    response: { runId: EX.runId, status: 'UPLOADED', bytes: 10 },
  },
  [`PUT ${ADMIN}/validated-actions/rules/{boardKey}`]: {
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
    response: rules,
  },
  [`GET ${ADMIN}/validated-actions/rules`]: {
    description: 'Every stored rule set; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { limit: 50 },
    response: page([rules]),
  },
  [`PUT ${ADMIN}/validated-actions/values/{key}`]: {
    description:
      'Defines a player value (key: 1–24 characters of `[a-z0-9._-]`), or replaces its definition: `minPerRun` and ' +
      '`maxPerRun` bound what one run may earn or spend, `dailyCap` caps credits per player and UTC day (null: none).',
    parameters: { key: 'coins' },
    request: { minPerRun: 0, maxPerRun: 250, dailyCap: 500 },
    response: value,
  },
  [`GET ${ADMIN}/validated-actions/values`]: {
    description: 'The value definitions; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { limit: 50 },
    response: page([value]),
  },
  [`POST ${ADMIN}/users/{userId}/values`]: {
    description:
      "Adjusts a player's balance by `amount` (positive or negative), audited with `reason`. 422 `UNKNOWN_VALUE_KEY` " +
      '(not defined) or `INSUFFICIENT_BALANCE` (the balance would go below 0). 404 `USER_NOT_FOUND`. Answers the audit record.',
    parameters: { userId: EX.userId },
    request: { key: 'coins', amount: 100, reason: 'Support ticket 4711' },
    response: adjustment,
  },
  [`GET ${ADMIN}/users/{userId}/values`]: {
    description: "A player's values, as the player reads them. 404 `USER_NOT_FOUND`.",
    parameters: { userId: EX.userId },
    response: state,
  },
  [`GET ${ADMIN}/validated-actions/adjustments`]: {
    description:
      'The audit trail of balance adjustments, newest first, optionally of one `userId`; paged by `limit` and `cursor`.',
    parameters: { userId: EX.userId, limit: 50 },
    response: page([adjustment]),
  },
  [`GET ${ADMIN}/validated-actions/runs`]: {
    description:
      'Runs, newest first, filtered by `userId`, `outcome` (`OPEN`, `EXPIRED`, `ACCEPTED`, `REJECTED`) and `sus`; paged by `limit` and `cursor`.',
    parameters: { outcome: 'ACCEPTED', sus: false, limit: 50 },
    response: page([run]),
  },
  [`GET ${ADMIN}/validated-actions/runs/{runId}`]: {
    description:
      'One run: outcome and rejection reason, measured duration, context, evidence status, review, and every submit ' +
      'attempt made with its ticket. 404 `NOT_FOUND`.',
    parameters: { runId: EX.runId },
    response: { ...run, submissions: [{ code: 'ACCEPTED', status: 200, at: '2026-11-20T08:19:12.000Z' }] },
  },
  [`GET ${ADMIN}/validated-actions/runs/{runId}/evidence`]: {
    description:
      "The run's uploaded input log, as `application/octet-stream`. 404 `NOT_FOUND` when no log was uploaded.",
    parameters: { runId: EX.runId },
    response: '(binary: the input log bytes)',
  },
  [`POST ${ADMIN}/validated-actions/runs/{runId}/review`]: {
    description:
      'Reviews an accepted run: `APPROVED` keeps it, `REJECTED` removes its score from the board. 409 `CONFLICT` when the ' +
      'run is not accepted, when approving a rejected run, or when another review raced this one. 404 `NOT_FOUND`.',
    parameters: { runId: EX.runId },
    request: { verdict: 'REJECTED' },
    response: {
      ...run,
      review: { verdict: 'REJECTED', reviewedAt: EX.now, scoreRemoved: true },
      submissions: [{ code: 'ACCEPTED', status: 200, at: '2026-11-20T08:19:12.000Z' }],
    },
  },
}
