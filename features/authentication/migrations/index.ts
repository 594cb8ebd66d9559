import type { Migration } from 'kysely'
import * as m0041 from './0041_create_account_tokens.js'
import * as m0081 from './0081_create_google_codes.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0041_create_account_tokens': m0041,
  '0081_create_google_codes': m0081,
}
