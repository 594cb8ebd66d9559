import type { Migration } from 'kysely'
import * as m0083 from './0083_create_operators.js'
import * as m0084 from './0084_create_operator_sessions.js'
import * as m0093 from './0093_operator_names_exact.js'
import * as m0141 from './0141_operator_roles_per_game.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0083_create_operators': m0083,
  '0084_create_operator_sessions': m0084,
  '0093_operator_names_exact': m0093,
  '0141_operator_roles_per_game': m0141,
}
