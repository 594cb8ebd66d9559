import type { Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * The e-mail queue. Rendered at queue time (later template edits do not change a queued mail);
 * `next_attempt_at` is when the worker may take it (the schedule, then the retry backoff), and
 * `claim_token`/`claimed_at` mark the one worker holding it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const big = engineOf(db).types.longText
  await db.schema
    .createTable('emails')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(36)', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('template_slug', 'varchar(64)', (c) => c.notNull())
    .addColumn('language', 'varchar(35)', (c) => c.notNull())
    .addColumn('recipient', 'varchar(254)', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', big)
    .addColumn('text_body', big)
    .addColumn('is_account', 'integer', (c) => c.notNull())
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('scheduled_at', 'bigint', (c) => c.notNull())
    .addColumn('next_attempt_at', 'bigint', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('claim_token', 'varchar(36)')
    .addColumn('claimed_at', 'bigint')
    .addColumn('processed_at', 'bigint')
    .addColumn('error_reason', 'varchar(1000)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('emails_due_idx').on('emails').columns(['status', 'next_attempt_at']).execute()
  await db.schema.createIndex('emails_user_created_idx').on('emails').columns(['user_id', 'created_at']).execute()
  await db.schema.createIndex('emails_created_idx').on('emails').columns(['created_at', 'id']).execute()
  await db.schema
    .createIndex('emails_status_created_idx')
    .on('emails')
    .columns(['status', 'created_at', 'id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('emails').execute()
}
