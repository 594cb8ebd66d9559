import { randomUUID } from 'node:crypto'
import { sql, type Transaction, type Updateable } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import type { ValidatedRun, ValidatedRunsTable } from './tables.js'
import type { Leaderboard } from '../leaderboard/service.js'
import { affected, flag } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, badRequest } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { hashToken } from '../../platform/security/secrets.js'
import type { EventSender } from '../../platform/core/events.js'
import { activeBoard, activeBoardFor, submitScore } from '../leaderboard/service.js'
import type { SubmitResult } from './schemas.js'
import { rulesFor, type EffectiveRules } from './rules.js'
import { applyEarned, checkEarned, lockPlayer, playerState, type Credit, type EarnedEntry } from './values.js'
import { DAY, EVIDENCE_WINDOW_MS, onBoard } from './start.js'

/**
 * The submit with its seven-step check order. The ticket is consumed by a conditional UPDATE in the
 * same transaction as the score write and the balance changes, so its effects happen at most once.
 */

/** A submit as the route hands it over: the ticket to spend and what the run claims. */
export interface SubmitInput {
  userId: string
  ticket: string
  inputLogHash: string
  score: number
  stage?: string
  leaderboardKey?: string
  earned: EarnedEntry[]
  now: number
}

interface Rejection {
  status: number
  code: string
  message: string
}

async function record(db: Db, runId: string | null, userId: string, code: string, status: number, now: number) {
  await db
    .insertInto('validated_submissions')
    .values({ id: randomUUID(), run_id: runId, user_id: userId, code, status, created_at: now })
    .execute()
}

const reject = (status: number, code: string, message: string): Rejection => ({ status, code, message })
const rejectionOf = (error: AppError): Rejection => reject(error.statusCode, error.code, error.message)

/** Steps 4–6 of the submit checks (the score is checked for runs bound to a board only: unbound runs send none). */
async function checkRun(
  trx: Db,
  run: ValidatedRun,
  board: Leaderboard | null,
  rules: EffectiveRules,
  input: SubmitInput,
  durationMs: number,
): Promise<Rejection | null> {
  const { score, stage, now } = input
  if (rules.maxAcceptedRunsPerDay !== null) {
    const dayStart = now - (now % DAY)
    const { n } = await onBoard(trx.selectFrom('validated_runs').where('user_id', '=', run.user_id), run.board_key)
      .where('outcome', '=', 'ACCEPTED')
      .where('consumed_at', '>=', dayStart)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    if (Number(n) >= rules.maxAcceptedRunsPerDay) {
      return reject(403, 'SCORE_LIMIT_REACHED', `At most ${rules.maxAcceptedRunsPerDay} runs per day are accepted`)
    }
  }

  if (stage === undefined) {
    if (rules.stageRequired) return reject(422, 'STAGE_REQUIRED', 'These rules require a stage')
  } else {
    const stageRule = rules.stages[stage]
    // Contract §5.3: with stages defined, an unlisted stage is refused whether or not one is required.
    if (!stageRule && (rules.stageRequired || Object.keys(rules.stages).length > 0)) {
      return reject(422, 'STAGE_UNKNOWN', `The stage '${stage}' has no rule`)
    }
    if (stageRule && board) {
      if (stageRule.maxScore !== null && score > stageRule.maxScore) {
        return reject(
          422,
          'STAGE_SCORE_ABOVE_MAX',
          `The score is above ${stageRule.maxScore}, the maximum of stage '${stage}'`,
        )
      }
      if (stageRule.minScore !== null && score < stageRule.minScore) {
        return reject(
          422,
          'STAGE_SCORE_BELOW_MIN',
          `The score is below ${stageRule.minScore}, the minimum of stage '${stage}'`,
        )
      }
    }
  }

  if (rules.minDurationSeconds !== null && durationMs < rules.minDurationSeconds * 1000) {
    return reject(422, 'DURATION_TOO_SHORT', `The run was shorter than ${rules.minDurationSeconds} s`)
  }
  if (board) {
    // The board's own bounds count as rules too: a validated run is never refused as a 400 after its ticket is spent.
    const max = Math.min(rules.maxScore ?? board.max_score, board.max_score)
    const min = Math.max(rules.minScore ?? board.min_score, board.min_score)
    if (score > max) return reject(422, 'SCORE_ABOVE_MAX', `The score is above the maximum of ${max}`)
    if (score < min) return reject(422, 'SCORE_BELOW_MIN', `The score is below the minimum of ${min}`)
    if (rules.maxScorePerSecond !== null && score * 1000 > rules.maxScorePerSecond * durationMs) {
      return reject(422, 'SCORE_RATE_TOO_HIGH', `The score rose faster than ${rules.maxScorePerSecond} per second`)
    }
  }
  return null
}

function susReasons(board: Leaderboard | null, rules: EffectiveRules, score: number, durationMs: number): string[] {
  if (!board) return []
  const reasons: string[] = []
  if (rules.susScore !== null && score > rules.susScore) reasons.push('susScore')
  if (rules.susScorePerSecond !== null && score * 1000 > rules.susScorePerSecond * durationMs)
    reasons.push('susScorePerSecond')
  return reasons
}

type Outcome = { rejection: Rejection } | { result: SubmitResult }

/** Thrown inside the submit's transaction when another submit consumed the ticket first: rolls it back. */
class AlreadyConsumed extends Error {}

/** An earned amount of 0 is a validation error; the route checks it before the session. */
export function checkEarnedAmounts(earned: ReadonlyArray<{ amount: number }>) {
  const zero = earned.findIndex((e) => e.amount === 0)
  if (zero >= 0) throw badRequest(`body/earned/${zero}/amount must not be 0`, `/earned/${zero}/amount`)
}

/**
 * The submit. Kept codes (TICKET_INVALID, TICKET_FOREIGN, LEADERBOARD_MISMATCH,
 * PLAYER_BANNED, and a board gone since the start) leave the ticket as it was; every later outcome
 * consumes it: a rejection commits the consumption and its record, then answers the error.
 */
export async function submitRun(db: Db, events: EventSender, input: SubmitInput): Promise<SubmitResult> {
  const { userId, now } = input
  checkEarnedAmounts(input.earned)

  const run = await db
    .selectFrom('validated_runs')
    .selectAll()
    .where('ticket_hash', '=', hashToken(input.ticket))
    .executeTakeFirst()
  if (!run) {
    await record(db, null, userId, 'TICKET_INVALID', 422, now)
    throw new AppError(422, 'TICKET_INVALID', 'The run ticket is not valid')
  }
  const fail = async ({ status, code, message }: Rejection, extra: Record<string, unknown> = {}) => {
    await record(db, run.id, userId, code, status, now)
    return new AppError(status, code, message, { ...extra, runId: run.id })
  }
  if (run.user_id !== userId)
    throw await fail(reject(422, 'TICKET_FOREIGN', 'The run ticket belongs to another player'))
  if (run.consumed_at !== null) throw await fail(reject(422, 'TICKET_CONSUMED', 'The run ticket was already used'))
  if (now >= run.expires_at) {
    const consumed = await db
      .updateTable('validated_runs')
      .set({ consumed_at: now, outcome: 'REJECTED', reason: 'TICKET_EXPIRED' })
      .where('id', '=', run.id)
      .where('consumed_at', 'is', null)
      .executeTakeFirst()
    throw await fail(
      affected(consumed) === 1
        ? reject(422, 'TICKET_EXPIRED', 'The run ticket has expired')
        : reject(422, 'TICKET_CONSUMED', 'The run ticket was already used'),
    )
  }
  if (input.leaderboardKey !== undefined && input.leaderboardKey !== run.board_key) {
    throw await fail(
      reject(
        422,
        'LEADERBOARD_MISMATCH',
        run.board_key === null
          ? 'The run was started without a leaderboard'
          : 'The run was started for another leaderboard',
      ),
    )
  }
  if (run.board_key !== null) {
    const standing = await activeBoardFor(db, run.board_key, userId).catch((error: unknown) => {
      if (error instanceof AppError) return error
      throw error
    })
    if (standing instanceof AppError) throw await fail(rejectionOf(standing))
    if (standing.banned) {
      throw await fail(reject(403, 'PLAYER_BANNED', 'The player is banned from this leaderboard'))
    }
  }

  let outcome: Outcome
  try {
    outcome = await inTransaction(db, (trx) => consumeAndApply(trx, events, run, input))
  } catch (error) {
    // Another submit of this ticket consumed it first: everything this one wrote is rolled back.
    if (error instanceof AlreadyConsumed)
      throw await fail(reject(422, 'TICKET_CONSUMED', 'The run ticket was already used'))
    // Rolled back (a ban or a board change raced the checks above): the ticket is still unused.
    if (error instanceof AppError) throw await fail(reject(error.statusCode, error.code, error.message), error.extra)
    throw error
  }
  if ('rejection' in outcome) {
    const { status, code, message } = outcome.rejection
    throw new AppError(status, code, message, { runId: run.id })
  }
  return outcome.result
}

async function consumeAndApply(
  trx: Transaction<Database>,
  events: EventSender,
  run: ValidatedRun,
  input: SubmitInput,
): Promise<Outcome> {
  const { userId, now, score } = input
  await lockPlayer(trx, userId, now)
  const durationMs = now - run.issued_at
  // The consumption rides in the one update that records the outcome, at the end: conditional on the
  // ticket being unused, so of two submits of one ticket (one after the other on the player's lock
  // row) only the first writes anything; the other finds it used and rolls back all it did.
  const consume = async (outcome: Partial<Updateable<ValidatedRunsTable>>) => {
    const consumed = await trx
      .updateTable('validated_runs')
      .set({
        consumed_at: now,
        score,
        stage: input.stage ?? null,
        input_log_hash: input.inputLogHash.toLowerCase(),
        duration_ms: durationMs,
        ...outcome,
      })
      .where('id', '=', run.id)
      .where('consumed_at', 'is', null)
      .executeTakeFirst()
    if (affected(consumed) !== 1) throw new AlreadyConsumed()
  }
  const board = run.board_key === null ? null : await activeBoard(trx, run.board_key)
  const rules = await rulesFor(trx, run.board_key)
  const refuse = async (rejection: Rejection): Promise<Outcome> => {
    await consume({ outcome: 'REJECTED', reason: rejection.code })
    await record(trx, run.id, userId, rejection.code, rejection.status, now)
    return { rejection }
  }

  const flagged = (status: 'sus' | 'rejected', reason: string) =>
    events.raise(trx, 'run.flagged', { runId: run.id, userId, board: run.board_key, score, status, reason })
  const ruleRejection = await checkRun(trx, run, board, rules, input, durationMs)
  if (ruleRejection) {
    await flagged('rejected', ruleRejection.code)
    return refuse(ruleRejection)
  }
  const earnedRejection = await checkEarned(trx, input.earned)
  if (earnedRejection) return refuse({ status: 422, ...earnedRejection })

  let touched: Map<string, Credit> | null = null
  if (input.earned.length > 0) {
    // A spend the balance does not cover undoes this step's earlier changes, not the consumption.
    await sql`savepoint run_values`.execute(trx)
    const applied = await applyEarned(trx, userId, input.earned, now)
    if ('code' in applied) {
      await sql`rollback to savepoint run_values`.execute(trx)
      return refuse({ status: 422, ...applied })
    }
    touched = applied.touched
  }

  const written = board
    ? await submitScore(trx, events, { boardKey: board.board_key, userId, score, validated: true, now })
    : null
  const reasons = susReasons(board, rules, score, durationMs)
  const topN = written !== null && rules.evidenceTopN !== null && written.position <= rules.evidenceTopN
  const evidence =
    topN || reasons.length > 0 ? { uploadBefore: now + EVIDENCE_WINDOW_MS, maxBytes: rules.evidenceMaxBytes } : null
  await consume({
    outcome: 'ACCEPTED',
    earned: touched ? JSON.stringify([...touched].map(([key, c]) => ({ key, ...c }))) : null,
    stored_score: written?.score ?? null,
    board_rank: written?.position ?? null,
    sus: flag(reasons.length > 0),
    sus_reasons: reasons.length ? JSON.stringify(reasons) : null,
    evidence_status: evidence ? 'REQUESTED' : null,
    evidence_upload_before: evidence?.uploadBefore ?? null,
    evidence_max_bytes: evidence?.maxBytes ?? null,
  })
  await record(trx, run.id, userId, 'ACCEPTED', 200, now)
  if (reasons.length > 0) await flagged('sus', reasons.join(', '))
  return {
    result: {
      accepted: true,
      runId: run.id,
      leaderboardKey: run.board_key,
      score: written ? score : null,
      bestScore: written?.score ?? null,
      isNewHighScore: written?.improved ?? false,
      rank: written?.position ?? null,
      durationSeconds: Math.floor(durationMs / 1000),
      state: touched ? await playerState(trx, userId, now, touched) : null,
      evidence: evidence
        ? { required: true, runId: run.id, uploadBefore: toIso(evidence.uploadBefore), maxBytes: evidence.maxBytes }
        : null,
      sus: reasons.length > 0,
    },
  }
}
