import type { Migration } from 'kysely'
import * as m0055 from './0055_create_user_feedback.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0055_create_user_feedback': m0055,
}
