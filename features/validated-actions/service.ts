import type { Db } from '../../db/types.js'
import { toIso } from '../../platform/core/clock.js'
import { withTransaction } from '../../db/transaction.js'
import { getRules, putRules } from './rules.js'
import { putValue } from './values.js'
import type { Rules, RulesBody, ValueBody } from './schemas.js'

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

// ---- copy between games (features/games/copy.ts) --------------------------------------------

/** The rule sets (`rules/<boardKey>`) and value definitions (`values/<key>`), as copying compares them. */
export async function snapshotValidation(db: Db): Promise<Record<string, unknown>> {
  const [rules, values] = await Promise.all([
    db.selectFrom('validated_rules').select('board_key').execute(),
    db.selectFrom('validated_values').selectAll().execute(),
  ])
  const snapshot: Record<string, unknown> = {}
  for (const { board_key } of rules) {
    const rules: Partial<Rules> = await getRules(db, board_key)
    delete rules.boardKey
    delete rules.createdAt
    delete rules.updatedAt
    snapshot[`rules/${board_key}`] = rules
  }
  for (const v of values) {
    snapshot[`values/${v.value_key}`] = { minPerRun: v.min_per_run, maxPerRun: v.max_per_run, dailyCap: v.daily_cap }
  }
  return snapshot
}

/**
 * Writes the rule sets and value definitions of `put` and deletes those of `remove` (keyed as the
 * snapshot), in one transaction. A rule set needs its board in the game (copy the leaderboards with
 * it); a value's definition deleted leaves the players' balances of it as they are.
 */
export async function replaceValidation(
  db: Db,
  change: { put: Record<string, unknown>; remove: readonly string[] },
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    for (const [id, body] of Object.entries(change.put)) {
      if (id.startsWith('rules/')) await putRules(trx, id.slice('rules/'.length), body as RulesBody, now)
      else await putValue(trx, id.slice('values/'.length), body as ValueBody, now)
    }
    for (const id of change.remove) {
      if (id.startsWith('rules/')) {
        await trx.deleteFrom('validated_rules').where('board_key', '=', id.slice('rules/'.length)).execute()
      } else await trx.deleteFrom('validated_values').where('value_key', '=', id.slice('values/'.length)).execute()
    }
  })
}
