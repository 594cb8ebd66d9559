import type { Migration } from 'kysely'
import * as m0056 from './0056_create_user_logs.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0056_create_user_logs': m0056,
}
