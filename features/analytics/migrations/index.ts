import type { Migration } from 'kysely'
import * as m0100 from './0100_create_player_activity.js'
import * as m0101 from './0101_create_analytics_daily.js'
import * as m0102 from './0102_create_analytics_days.js'
import * as m0128 from './0128_index_analytics_daily_day.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0100_create_player_activity': m0100,
  '0101_create_analytics_daily': m0101,
  '0102_create_analytics_days': m0102,
  '0128_index_analytics_daily_day': m0128,
}
