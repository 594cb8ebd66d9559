import { type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * Indexes the daily rollups and the exact counts read (contract §12): each day's build counts one day of
 * rows by time, and without these every build would scan the whole table.
 * It changes the tables of four features; it lives with crash-reporting, whose two tables (crash_sessions,
 * crash_reports) it mainly indexes, and also indexes gift_code_redemptions (gift-codes), emails
 * (email-sending) and validated_runs (validated-actions).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('crash_sessions_created_idx')
    .on('crash_sessions')
    .columns(['created_at', 'app_version', 'crashed'])
    .execute()
  await db.schema
    .createIndex('crash_reports_created_idx')
    .on('crash_reports')
    .columns(['created_at', 'app_version'])
    .execute()
  await db.schema
    .createIndex('gift_code_redemptions_time_idx')
    .on('gift_code_redemptions')
    .column('redeemed_at')
    .execute()
  await db.schema.createIndex('emails_status_processed_idx').on('emails').columns(['status', 'processed_at']).execute()
  await db.schema
    .createIndex('validated_runs_review_idx')
    .on('validated_runs')
    .columns(['sus', 'review_verdict'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  const tables: Record<string, string> = {
    crash_sessions_created_idx: 'crash_sessions',
    crash_reports_created_idx: 'crash_reports',
    gift_code_redemptions_time_idx: 'gift_code_redemptions',
    emails_status_processed_idx: 'emails',
    validated_runs_review_idx: 'validated_runs',
  }
  for (const [index, table] of Object.entries(tables)) {
    await engineOf(db).dropIndex(db, index, table).execute()
  }
}
