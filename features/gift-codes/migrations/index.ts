import type { Migration } from 'kysely'
import * as m0060 from './0060_create_gift_codes.js'
import * as m0061 from './0061_create_gift_code_redemptions.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0060_create_gift_codes': m0060,
  '0061_create_gift_code_redemptions': m0061,
}
