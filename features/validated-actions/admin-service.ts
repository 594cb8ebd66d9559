import { sql } from 'kysely'
import type { Db } from '../../db/types.js'
import type { ReviewVerdict, ValidatedRun } from './tables.js'
import { affected, flag } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { toIso, toIsoOrNull } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { EventSender } from '../../platform/core/events.js'
import { withdrawScore } from '../leaderboard/service.js'
import type { AdminRun, AdminRunDetail, RunListQuery } from './schemas.js'

/**
 * The operator's view of validated runs: the list with filters, one run with its start
 * context, evidence and every submit attempt, and the review. A REJECTED verdict takes the run's
 * score off its board when the player's entry still holds the score this run wrote.
 */

type RunRow = Omit<ValidatedRun, 'initial_state'> & {
  initial_state_bytes: number | null
  evidence_bytes: number | null
  evidence_uploaded_at: number | null
}

function runs(db: Db) {
  return db
    .selectFrom('validated_runs as r')
    .leftJoin('validated_evidence as e', 'e.run_id', 'r.id')
    .select([
      'r.id',
      'r.user_id',
      'r.ticket_hash',
      'r.board_key',
      'r.seed',
      'r.context',
      'r.issued_at',
      'r.expires_at',
      'r.consumed_at',
      'r.outcome',
      'r.reason',
      'r.score',
      'r.stage',
      'r.input_log_hash',
      'r.earned',
      'r.duration_ms',
      'r.stored_score',
      'r.board_rank',
      'r.sus',
      'r.sus_reasons',
      'r.evidence_status',
      'r.evidence_upload_before',
      'r.evidence_max_bytes',
      'r.review_verdict',
      'r.reviewed_at',
      'r.score_withdrawn',
      sql<number | null>`length(r.initial_state)`.as('initial_state_bytes'),
      'e.bytes as evidence_bytes',
      'e.uploaded_at as evidence_uploaded_at',
    ])
}

function toAdminRun(row: RunRow, now: number): AdminRun {
  const context = row.context ? (JSON.parse(row.context) as Record<string, string>) : {}
  const evidenceStatus =
    row.evidence_status === null
      ? 'NONE'
      : row.evidence_status === 'REQUESTED' && now >= row.evidence_upload_before!
        ? 'EXPIRED'
        : row.evidence_status
  return {
    runId: row.id,
    userId: row.user_id,
    leaderboardKey: row.board_key,
    seed: row.seed,
    issuedAt: toIso(row.issued_at),
    expiresAt: toIso(row.expires_at),
    submittedAt: toIsoOrNull(row.consumed_at),
    outcome: row.outcome ?? (now >= row.expires_at ? 'EXPIRED' : 'OPEN'),
    reason: row.reason,
    score: row.score,
    stage: row.stage,
    inputLogHash: row.input_log_hash,
    durationSeconds: row.duration_ms === null ? null : Math.floor(row.duration_ms / 1000),
    durationMs: row.duration_ms,
    bestScore: row.stored_score,
    rank: row.board_rank,
    earned: row.earned ? (JSON.parse(row.earned) as AdminRun['earned']) : null,
    sus: row.sus === 1,
    susReasons: row.sus_reasons ? (JSON.parse(row.sus_reasons) as string[]) : [],
    context: {
      gameVersion: context.gameVersion ?? null,
      contentVersion: context.contentVersion ?? null,
      simulationVersion: context.simulationVersion ?? null,
      replayFormatVersion: context.replayFormatVersion ?? null,
      contentDigest: context.contentDigest ?? null,
      initialStateBytes: row.initial_state_bytes === null ? null : Number(row.initial_state_bytes),
    },
    evidence: {
      status: evidenceStatus,
      uploadBefore: toIsoOrNull(row.evidence_upload_before),
      maxBytes: row.evidence_max_bytes,
      bytes: row.evidence_bytes,
      uploadedAt: toIsoOrNull(row.evidence_uploaded_at),
    },
    review: {
      verdict: row.review_verdict,
      reviewedAt: toIsoOrNull(row.reviewed_at),
      scoreRemoved: row.score_withdrawn === 1,
    },
  }
}

/** Newest first; filters by player, outcome (OPEN and EXPIRED are unsubmitted runs) and sus. */
export async function listRuns(db: Db, query: RunListQuery, now: number) {
  let select = runs(db)
  if (query.userId) select = select.where('r.user_id', '=', query.userId)
  if (query.sus !== undefined) select = select.where('r.sus', '=', flag(query.sus))
  if (query.outcome === 'ACCEPTED' || query.outcome === 'REJECTED')
    select = select.where('r.outcome', '=', query.outcome)
  if (query.outcome === 'OPEN') select = select.where('r.outcome', 'is', null).where('r.expires_at', '>', now)
  if (query.outcome === 'EXPIRED') select = select.where('r.outcome', 'is', null).where('r.expires_at', '<=', now)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: query.cursor,
    limit: query.limit,
    keys: ['r.issued_at', 'r.id'],
  })
  return { items: (items as RunRow[]).map((r) => toAdminRun(r, now)), nextCursor }
}

/** One run for review, with its first 100 submits (code and status, oldest first); 404 when unknown. */
export async function runDetail(db: Db, runId: string, now: number): Promise<AdminRunDetail> {
  const row = (await runs(db).where('r.id', '=', runId).executeTakeFirst()) as RunRow | undefined
  if (!row) throw notFound('NOT_FOUND', 'Run not found')
  const submissions = await db
    .selectFrom('validated_submissions')
    .select(['code', 'status', 'created_at'])
    .where('run_id', '=', runId)
    .orderBy('created_at')
    .orderBy('id')
    .limit(100)
    .execute()
  return {
    ...toAdminRun(row, now),
    submissions: submissions.map((s) => ({ code: s.code, status: s.status, at: toIso(s.created_at) })),
  }
}

/**
 * Records the operator's verdict on an accepted run. REJECTED is final: it takes the run's score off
 * the board (the entry is removed when it still holds the score this run wrote; an entry a later run
 * changed is left as it is) and cannot be turned into APPROVED. Balances the run changed are not
 * touched: the operator adjusts them separately (audited).
 */
export async function reviewRun(
  db: Db,
  events: EventSender,
  runId: string,
  verdict: ReviewVerdict,
  now: number,
): Promise<AdminRunDetail> {
  await inTransaction(db, async (trx) => {
    const run = await trx
      .selectFrom('validated_runs')
      .select(['user_id', 'board_key', 'outcome', 'review_verdict', 'stored_score', 'consumed_at'])
      .where('id', '=', runId)
      .executeTakeFirst()
    if (!run) throw notFound('NOT_FOUND', 'Run not found')
    if (run.outcome !== 'ACCEPTED') throw new AppError(409, 'CONFLICT', 'Only accepted runs can be reviewed')
    if (run.review_verdict === 'REJECTED') {
      if (verdict === 'REJECTED') return
      throw new AppError(409, 'CONFLICT', 'A rejected run cannot be approved: its score has left the board')
    }
    // Conditional on the verdict read above, so two concurrent reviews withdraw the score once.
    const changed = await trx
      .updateTable('validated_runs')
      .set({ review_verdict: verdict, reviewed_at: now })
      .where('id', '=', runId)
      .where((eb) =>
        run.review_verdict === null ? eb('review_verdict', 'is', null) : eb('review_verdict', '=', run.review_verdict),
      )
      .executeTakeFirst()
    if (affected(changed) !== 1)
      throw new AppError(409, 'CONFLICT', 'The run was reviewed at the same time; read it again')
    if (verdict === 'REJECTED' && run.board_key !== null && run.stored_score !== null) {
      const withdrawn = await withdrawScore(trx, events, {
        boardKey: run.board_key,
        userId: run.user_id,
        score: run.stored_score,
        at: run.consumed_at!,
      })
      if (withdrawn)
        await trx.updateTable('validated_runs').set({ score_withdrawn: 1 }).where('id', '=', runId).execute()
    }
  })
  return runDetail(db, runId, now)
}
