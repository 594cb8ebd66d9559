import type { Migration } from 'kysely'
import * as m0110 from './0110_create_webhook_endpoints.js'
import * as m0111 from './0111_create_webhook_deliveries.js'
import * as m0112 from './0112_create_webhook_attempts.js'
import * as m0124 from './0124_add_webhook_health.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0110_create_webhook_endpoints': m0110,
  '0111_create_webhook_deliveries': m0111,
  '0112_create_webhook_attempts': m0112,
  '0124_add_webhook_health': m0124,
}
