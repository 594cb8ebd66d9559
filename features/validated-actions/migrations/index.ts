import type { Migration } from 'kysely'
import * as m0070 from './0070_create_validated_rules.js'
import * as m0071 from './0071_create_validated_values.js'
import * as m0072 from './0072_create_validated_runs.js'
import * as m0073 from './0073_create_validated_evidence.js'
import * as m0074 from './0074_create_validated_submissions.js'
import * as m0075 from './0075_create_validated_players.js'
import * as m0076 from './0076_create_validated_balances.js'
import * as m0077 from './0077_create_validated_adjustments.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0070_create_validated_rules': m0070,
  '0071_create_validated_values': m0071,
  '0072_create_validated_runs': m0072,
  '0073_create_validated_evidence': m0073,
  '0074_create_validated_submissions': m0074,
  '0075_create_validated_players': m0075,
  '0076_create_validated_balances': m0076,
  '0077_create_validated_adjustments': m0077,
}
