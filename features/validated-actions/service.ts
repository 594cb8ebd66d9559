import type { Db } from '../../db/types.js'
import { toIso } from '../../platform/core/clock.js'

/**
 * The validated-actions feature's one entry for other code: starting a run, submitting it (each in a
 * file of its own) and a player's data export.
 */
export * from './start.js'
export * from './submit.js'

// ---- data export ------------------------------------------------------------------------------

/** The player's values, their audited history and their runs, for their data export (no ticket digests). */
export async function exportForUser(db: Db, userId: string) {
  const [balances, adjustments, runs] = await Promise.all([
    db.selectFrom('validated_balances').selectAll().where('user_id', '=', userId).orderBy('value_key').execute(),
    db
      .selectFrom('validated_adjustments')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
    db
      .selectFrom('validated_runs')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('issued_at')
      .orderBy('id')
      .execute(),
  ])
  const iso = (ms: number | null) => (ms === null ? null : toIso(Number(ms)))
  const json = (text: string | null) => (text === null ? null : (JSON.parse(text) as unknown))
  return {
    values: balances.map((b) => ({
      key: b.value_key,
      balance: Number(b.balance),
      earnedToday: Number(b.earned_today),
      earnedDay: b.earned_day,
      updatedAt: toIso(Number(b.updated_at)),
    })),
    valueHistory: adjustments.map((a) => ({
      id: a.id,
      key: a.value_key,
      amount: Number(a.amount),
      balanceAfter: Number(a.balance_after),
      reason: a.reason,
      createdAt: toIso(Number(a.created_at)),
    })),
    runs: runs.map((r) => ({
      runId: r.id,
      leaderboardKey: r.board_key,
      context: json(r.context),
      issuedAt: toIso(Number(r.issued_at)),
      consumedAt: iso(r.consumed_at),
      outcome: r.outcome,
      reason: r.reason,
      score: r.score === null ? null : Number(r.score),
      stage: r.stage,
      earned: json(r.earned),
      durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
      evidenceStatus: r.evidence_status,
      reviewVerdict: r.review_verdict,
    })),
  }
}
export * from './stats.js'
