import type { Db } from '../../db/types.js'
import type { ValidatedRules } from './tables.js'
import { flag, upsert } from '../../db/dialect.js'
import { badRequest } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { boardNotFound, findBoard } from '../leaderboard/service.js'
import {
  DEFAULT_EVIDENCE_MAX_BYTES,
  DEFAULT_TICKET_TTL_SECONDS,
  UNBOUND,
  type Rules,
  type RulesBody,
} from './schemas.js'

/**
 * The operator's rules of validated runs, one set per board and one for unbound runs (`_unbound`).
 * A board without a stored set runs under the defaults: every limit null (none), a ticket lives
 * 7200 s, evidence logs up to 32768 bytes.
 */

/** The score bounds of one stage of a run. */
export interface StageRule {
  minScore: number | null
  maxScore: number | null
}

/** The rules as the checks use them. */
export interface EffectiveRules {
  boardKey: string
  minDurationSeconds: number | null
  minScore: number | null
  maxScore: number | null
  maxScorePerSecond: number | null
  stages: Record<string, StageRule>
  stageRequired: boolean
  ticketTtlSeconds: number
  maxRunsPerHour: number | null
  maxOpenRuns: number | null
  maxAcceptedRunsPerDay: number | null
  susScore: number | null
  susScorePerSecond: number | null
  evidenceTopN: number | null
  evidenceMaxBytes: number
}

/** Runs bound to no board keep their rules under a reserved key, since null cannot be a row's key. */
export const rulesKey = (boardKey: string | null) => boardKey ?? UNBOUND

function defaults(boardKey: string): EffectiveRules {
  return {
    boardKey,
    minDurationSeconds: null,
    minScore: null,
    maxScore: null,
    maxScorePerSecond: null,
    stages: {},
    stageRequired: false,
    ticketTtlSeconds: DEFAULT_TICKET_TTL_SECONDS,
    maxRunsPerHour: null,
    maxOpenRuns: null,
    maxAcceptedRunsPerDay: null,
    susScore: null,
    susScorePerSecond: null,
    evidenceTopN: null,
    evidenceMaxBytes: DEFAULT_EVIDENCE_MAX_BYTES,
  }
}

function fromRow(row: ValidatedRules): EffectiveRules {
  return {
    boardKey: row.board_key,
    minDurationSeconds: row.min_duration_seconds,
    minScore: row.min_score,
    maxScore: row.max_score,
    maxScorePerSecond: row.max_score_per_second,
    stages: JSON.parse(row.stages) as Record<string, StageRule>,
    stageRequired: row.stage_required === 1,
    ticketTtlSeconds: row.ticket_ttl_seconds,
    maxRunsPerHour: row.max_runs_per_hour,
    maxOpenRuns: row.max_open_runs,
    maxAcceptedRunsPerDay: row.max_accepted_runs_per_day,
    susScore: row.sus_score,
    susScorePerSecond: row.sus_score_per_second,
    evidenceTopN: row.evidence_top_n,
    evidenceMaxBytes: row.evidence_max_bytes,
  }
}

/** The rules of a board (or of unbound runs for `null`), the defaults when none are stored. */
export async function rulesFor(db: Db, boardKey: string | null): Promise<EffectiveRules> {
  const key = rulesKey(boardKey)
  const row = await db.selectFrom('validated_rules').selectAll().where('board_key', '=', key).executeTakeFirst()
  return row ? fromRow(row) : defaults(key)
}

function toRules(rules: EffectiveRules, row?: Pick<ValidatedRules, 'created_at' | 'updated_at'>): Rules {
  return {
    ...rules,
    createdAt: row ? toIso(row.created_at) : null,
    updatedAt: row ? toIso(row.updated_at) : null,
  }
}

/** A board's rules, or the defaults when none were set, so the console always has a form to show. */
export async function getRules(db: Db, boardKey: string): Promise<Rules> {
  const row = await db.selectFrom('validated_rules').selectAll().where('board_key', '=', boardKey).executeTakeFirst()
  return row ? toRules(fromRow(row), row) : toRules(defaults(boardKey))
}

const orNull = <T>(value: T | null | undefined): T | null => (value === undefined ? null : value)

/** Replaces the rule set of a board (or `_unbound`): omitted fields take their defaults. */
export async function putRules(db: Db, boardKey: string, body: RulesBody, now: number): Promise<Rules> {
  if (boardKey !== UNBOUND && !(await findBoard(db, boardKey))) {
    throw boardNotFound(boardKey)
  }
  const minScore = orNull(body.minScore)
  const maxScore = orNull(body.maxScore)
  if (minScore !== null && maxScore !== null && minScore > maxScore) {
    throw badRequest(`body/minScore (${minScore}) must not be above maxScore (${maxScore})`, '/minScore')
  }
  const stages: Record<string, StageRule> = {}
  for (const [stage, rule] of Object.entries(body.stages ?? {})) {
    const stageRule = { minScore: orNull(rule.minScore), maxScore: orNull(rule.maxScore) }
    if (stageRule.minScore !== null && stageRule.maxScore !== null && stageRule.minScore > stageRule.maxScore) {
      throw badRequest(`body/stages/${stage}: minScore must not be above maxScore`, `/stages/${stage}`)
    }
    stages[stage] = stageRule
  }
  const fields = {
    min_duration_seconds: orNull(body.minDurationSeconds),
    min_score: minScore,
    max_score: maxScore,
    max_score_per_second: orNull(body.maxScorePerSecond),
    stages: JSON.stringify(stages),
    stage_required: flag(body.stageRequired ?? false),
    ticket_ttl_seconds: body.ticketTtlSeconds ?? DEFAULT_TICKET_TTL_SECONDS,
    max_runs_per_hour: orNull(body.maxRunsPerHour),
    max_open_runs: orNull(body.maxOpenRuns),
    max_accepted_runs_per_day: orNull(body.maxAcceptedRunsPerDay),
    sus_score: orNull(body.susScore),
    sus_score_per_second: orNull(body.susScorePerSecond),
    evidence_top_n: orNull(body.evidenceTopN),
    evidence_max_bytes: body.evidenceMaxBytes ?? DEFAULT_EVIDENCE_MAX_BYTES,
    updated_at: now,
  }
  // A replace keeps created_at; the primary key settles two concurrent PUTs.
  await upsert(db, 'validated_rules', [{ board_key: boardKey, created_at: now, ...fields }], {
    key: ['board_key'],
    update: Object.keys(fields),
  })
  return getRules(db, boardKey)
}

/** The console's list of rule sets, oldest first. */
export async function listRules(db: Db, options: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('validated_rules').selectAll(), {
    ...options,
    keys: ['created_at', 'board_key'],
    direction: 'asc',
  })
  return { items: items.map((r) => toRules(fromRow(r), r)), nextCursor }
}
