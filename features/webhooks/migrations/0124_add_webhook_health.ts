import { sql, type Kysely } from 'kysely'

/**
 * An endpoint's delivery health, kept on its row by the worker in the transaction that records each
 * attempt, so a list of endpoints reads it with no look at the attempts: when the last attempt was
 * made and how it ended, when one last delivered, and how many attempts failed since. Endpoints that
 * already have attempts get these from them.
 */
const COLUMNS = [
  ['last_attempt_at', 'bigint'],
  ['last_outcome', 'varchar(16)'],
  ['last_response_code', 'integer'],
  ['last_delivered_at', 'bigint'],
] as const

export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  for (const [name, type] of COLUMNS) await db.schema.alterTable('webhook_endpoints').addColumn(name, type).execute()
  await db.schema
    .alterTable('webhook_endpoints')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()

  const attempts = sql`webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = webhook_endpoints.id`
  const lastDelivered = sql`(SELECT MAX(a.id) FROM ${attempts} AND a.outcome = 'delivered')`
  await sql`UPDATE webhook_endpoints SET
    last_attempt_at = (SELECT a.at FROM ${attempts} ORDER BY a.id DESC LIMIT 1),
    last_outcome = (SELECT a.outcome FROM ${attempts} ORDER BY a.id DESC LIMIT 1),
    last_response_code = (SELECT a.response_code FROM ${attempts} ORDER BY a.id DESC LIMIT 1),
    last_delivered_at = (SELECT MAX(a.at) FROM ${attempts} AND a.outcome = 'delivered'),
    consecutive_failures = (SELECT COUNT(*) FROM ${attempts} AND a.outcome <> 'delivered' AND a.id > COALESCE(${lastDelivered}, 0))
  `.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['consecutive_failures', ...COLUMNS.map(([column]) => column).reverse()]) {
    await db.schema.alterTable('webhook_endpoints').dropColumn(name).execute()
  }
}
