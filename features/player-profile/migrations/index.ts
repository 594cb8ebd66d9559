import type { Migration } from 'kysely'
import * as m0010 from './0010_create_cosmetics.js'
import * as m0011 from './0011_create_player_profiles.js'
import * as m0012 from './0012_create_player_unlocks.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0010_create_cosmetics': m0010,
  '0011_create_player_profiles': m0011,
  '0012_create_player_unlocks': m0012,
}
