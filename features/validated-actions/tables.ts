import type { Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** Rules of validated runs for one board, or for unbound runs under the key `_unbound`. */
export interface ValidatedRulesTable {
  board_key: string
  min_duration_seconds: number | null
  min_score: number | null
  max_score: number | null
  max_score_per_second: number | null
  /** JSON object `{ stageKey: { minScore?, maxScore? } }`. */
  stages: string
  stage_required: Flag
  ticket_ttl_seconds: number
  max_runs_per_hour: number | null
  max_open_runs: number | null
  max_accepted_runs_per_day: number | null
  sus_score: number | null
  sus_score_per_second: number | null
  evidence_top_n: number | null
  evidence_max_bytes: number
  created_at: number
  updated_at: number
}

/** An operator-defined player value (a currency, a counter); null bounds are no bound. */
export interface ValidatedValuesTable {
  value_key: string
  min_per_run: number | null
  max_per_run: number | null
  daily_cap: number | null
  created_at: number
  updated_at: number
}

/** How a run's one real submit ended (null until then); a rejection's code is in `reason`. */
export type RunOutcome = 'ACCEPTED' | 'REJECTED'

/** A run's evidence: asked for by the submit answer (`REQUESTED`, until its deadline) or received (`UPLOADED`). */
export type EvidenceStatus = 'REQUESTED' | 'UPLOADED'

/** An operator's verdict on an accepted run; `REJECTED` is final and takes the run's score off its board. */
export type ReviewVerdict = 'APPROVED' | 'REJECTED'

/**
 * A validated run: issued with a ticket (stored hashed), consumed once by its one real submit.
 * `outcome` stays null while the ticket is unconsumed.
 */
export interface ValidatedRunsTable {
  id: string
  user_id: string
  ticket_hash: string
  /** The board the ticket is bound to; null for an unbound run. */
  board_key: string | null
  seed: number
  /** JSON object of the start context's strings (versions, content digest). */
  context: string | null
  initial_state: Buffer | null
  issued_at: number
  expires_at: number
  consumed_at: number | null
  outcome: RunOutcome | null
  /** The rejection code. */
  reason: string | null
  score: number | null
  stage: string | null
  input_log_hash: string | null
  /** JSON array `[{ key, requested, credited }]`. */
  earned: string | null
  duration_ms: number | null
  /** The player's stored score on the board after the run (bestScore). */
  stored_score: number | null
  board_rank: number | null
  sus: Flag
  /** JSON array of the soft thresholds crossed. */
  sus_reasons: string | null
  evidence_status: EvidenceStatus | null
  evidence_upload_before: number | null
  evidence_max_bytes: number | null
  review_verdict: ReviewVerdict | null
  reviewed_at: number | null
  /** 1 when a REJECTED review took the run's score off its board. */
  score_withdrawn: Flag
}

/** The input log uploaded for a run whose evidence was requested, kept for the operator's review. */
export interface ValidatedEvidenceTable {
  run_id: string
  data: Buffer
  bytes: number
  uploaded_at: number
}

/** One row per submit, whatever its outcome (`ACCEPTED` or the error code). */
export interface ValidatedSubmissionsTable {
  id: string
  run_id: string | null
  user_id: string
  code: string
  status: number
  created_at: number
}

/** The per-player lock row of validated actions (see migration 0075). */
export interface ValidatedPlayersTable {
  user_id: string
  /** When the row was last taken, moved on by at least one at each take (lockPlayer: the take is a write). */
  locked_at: number
}

/** A player's balance of one value, with what runs credited today against the value's daily cap. */
export interface ValidatedBalancesTable {
  user_id: string
  value_key: string
  balance: number
  earned_today: number
  /** The UTC day (YYYY-MM-DD) `earned_today` counts. */
  earned_day: string
  updated_at: number
}

/** An operator's change to a player's balance, with the balance after it and the reason: the audit trail. */
export interface ValidatedAdjustmentsTable {
  id: string
  user_id: string
  value_key: string
  amount: number
  balance_after: number
  reason: string | null
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    validated_rules: ValidatedRulesTable
    validated_values: ValidatedValuesTable
    validated_runs: ValidatedRunsTable
    validated_evidence: ValidatedEvidenceTable
    validated_submissions: ValidatedSubmissionsTable
    validated_players: ValidatedPlayersTable
    validated_balances: ValidatedBalancesTable
    validated_adjustments: ValidatedAdjustmentsTable
  }
}

/** A row of validated_rules as read. */
export type ValidatedRules = Selectable<ValidatedRulesTable>

/** A row of validated_values as read. */
export type ValidatedValue = Selectable<ValidatedValuesTable>

/** A row of validated_runs as read. */
export type ValidatedRun = Selectable<ValidatedRunsTable>
