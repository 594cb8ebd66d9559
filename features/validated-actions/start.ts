import { createHash, randomInt, randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import { flag } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { hashToken, randomToken } from '../../platform/security/secrets.js'
import { activeBoardFor } from '../leaderboard/service.js'
import type { RunContext, StartRunResponse } from './schemas.js'
import { rulesFor } from './rules.js'
import { lockPlayer } from './values.js'

/** Validated runs: the run start (ticket, seed, start context, per-player limits). */
const HOUR = 3600 * 1000
/** The span of the per-day run limits. */
export const DAY = 24 * HOUR
/** How long a run's evidence may be uploaded after the submit: a day, then the request lapses. */
export const EVIDENCE_WINDOW_MS = DAY
const SEED_LIMIT = 2 ** 31

/** Standard base64 with padding (what the SDKs send): length a multiple of 4, `=` only at the end. */
export const isBase64 = (text: string) => text.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(text)

/** The hash form the SDKs send inputLogHash in, to compare with the evidence. */
export const sha256Hex = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** `board_key = ?`, or `board_key is null` for unbound runs. */
export function onBoard<QB extends { where: (...args: any[]) => QB }>(query: QB, boardKey: string | null): QB {
  return boardKey === null ? query.where('board_key', 'is', null) : query.where('board_key', '=', boardKey)
}

const CONTEXT_FIELDS = [
  'gameVersion',
  'contentVersion',
  'simulationVersion',
  'replayFormatVersion',
  'contentDigest',
] as const

/** A run start as the route hands it over: the player, the board and what the client says of the run. */
export interface StartInput {
  userId: string
  boardKey?: string
  context?: RunContext | null
  now: number
}

/**
 * The start's check that needs only the body: the initial state's encoding (its size depends on the
 * rules). The route runs it before the session, as validation comes first. Returns the
 * encoded initial state, if any.
 */
export function checkRunContext(context: RunContext | null | undefined): string | undefined {
  const encoded = context?.initialState
  if (typeof encoded !== 'string' || encoded === '') return undefined
  if (!isBase64(encoded))
    throw new AppError(400, 'INITIAL_STATE_INVALID_ENCODING', 'context.initialState must be standard base64')
  return encoded
}

/**
 * Issues a run. The limits are counted in SQL while the player's lock row is held, so two starts of
 * one player (on any instance) cannot both pass the last free slot.
 */
export async function startRun(db: Db, input: StartInput): Promise<StartRunResponse> {
  const { userId, now } = input
  let boardKey: string | null = null
  if (input.boardKey !== undefined) {
    const { board, banned } = await activeBoardFor(db, input.boardKey, userId)
    if (banned) {
      throw new AppError(403, 'PLAYER_BANNED', 'The player is banned from this leaderboard')
    }
    boardKey = board.board_key
  }
  const rules = await rulesFor(db, boardKey)

  const context: Record<string, string> = {}
  for (const field of CONTEXT_FIELDS) {
    const value = input.context?.[field]
    if (typeof value === 'string' && value !== '')
      context[field] = field === 'contentDigest' ? value.toLowerCase() : value
  }
  let initialState: Buffer | null = null
  const encoded = checkRunContext(input.context)
  if (encoded !== undefined) {
    initialState = Buffer.from(encoded, 'base64')
    if (initialState.length > rules.evidenceMaxBytes) {
      throw new AppError(
        413,
        'INITIAL_STATE_TOO_LARGE',
        `context.initialState must decode to at most ${rules.evidenceMaxBytes} bytes`,
      )
    }
  }

  const ticket = randomToken(32)
  const run = {
    id: randomUUID(),
    user_id: userId,
    ticket_hash: hashToken(ticket),
    board_key: boardKey,
    seed: randomInt(0, SEED_LIMIT),
    context: Object.keys(context).length ? JSON.stringify(context) : null,
    initial_state: initialState,
    issued_at: now,
    expires_at: now + rules.ticketTtlSeconds * 1000,
    sus: flag(false),
    score_withdrawn: flag(false),
  }
  // Without a limit to count, the insert is the whole start: the player's lock serializes counts only.
  if (rules.maxRunsPerHour === null && rules.maxOpenRuns === null) {
    await db.insertInto('validated_runs').values(run).execute()
    return startAnswer(run, ticket, rules.ticketTtlSeconds)
  }
  await inTransaction(db, async (trx) => {
    await lockPlayer(trx, userId, now)
    // Both counts in one statement, read while the player's lock row is held.
    const mine = () => onBoard(trx.selectFrom('validated_runs').where('user_id', '=', userId), boardKey)
    const recent = mine().where('issued_at', '>', now - HOUR)
    const open = mine().where('consumed_at', 'is', null).where('expires_at', '>', now)
    const counts = await trx
      .selectNoFrom((eb) => [
        recent.select(eb.fn.countAll<number>().as('n')).as('recent'),
        open.select(eb.fn.countAll<number>().as('n')).as('open'),
      ])
      .executeTakeFirstOrThrow()
    if (rules.maxRunsPerHour !== null && Number(counts.recent) >= rules.maxRunsPerHour) {
      // Starts are allowed again once enough of the window's runs have aged out of it.
      const freeing = await recent
        .select('issued_at')
        .orderBy('issued_at')
        .offset(Number(counts.recent) - rules.maxRunsPerHour)
        .limit(1)
        .executeTakeFirstOrThrow()
      const retryAfter = Math.max(1, Math.ceil((freeing.issued_at + HOUR - now) / 1000))
      throw new AppError(
        429,
        'RUN_RATE_LIMITED',
        `At most ${rules.maxRunsPerHour} runs per hour may be started; try again in ${retryAfter} s`,
        { retryAfterSeconds: retryAfter },
        { 'retry-after': String(retryAfter) },
      )
    }
    if (rules.maxOpenRuns !== null && Number(counts.open) >= rules.maxOpenRuns) {
      throw new AppError(
        429,
        'RUN_CAPACITY_REACHED',
        `At most ${rules.maxOpenRuns} unsubmitted runs may be open at once`,
      )
    }
    await trx.insertInto('validated_runs').values(run).execute()
  })
  return startAnswer(run, ticket, rules.ticketTtlSeconds)
}

function startAnswer(
  run: { id: string; seed: number; board_key: string | null; issued_at: number; expires_at: number },
  ticket: string,
  ticketTtlSeconds: number,
): StartRunResponse {
  return {
    runId: run.id,
    ticket,
    seed: run.seed,
    leaderboardKey: run.board_key,
    issuedAt: toIso(run.issued_at),
    expiresAt: toIso(run.expires_at),
    expiresInSeconds: ticketTtlSeconds,
  }
}
