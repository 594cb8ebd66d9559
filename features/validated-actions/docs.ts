import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
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

export const HASH = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'

export const SESSION =
  "Session required: a bearer token of the body's or query's `userId` (401 `SESSION_REQUIRED`, 403 `SESSION_FORBIDDEN`, " +
  '403 `USER_BANNED`; 404 `USER_NOT_FOUND` for an unknown user).'

export const state = {
  userId: EX.userId,
  day: '2026-11-22',
  values: [{ key: 'coins', balance: 1350, earnedToday: 150, dailyCap: 500 }],
}
export const rules = {
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
export const value = {
  key: 'coins',
  minPerRun: 0,
  maxPerRun: 250,
  dailyCap: 500,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
export const adjustment = {
  adjustmentId: EX.id,
  userId: EX.userId,
  key: 'coins',
  amount: 100,
  balance: 1450,
  reason: 'Support ticket 4711',
  createdAt: EX.now,
}
export const run = {
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
