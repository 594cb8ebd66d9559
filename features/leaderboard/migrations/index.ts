import type { Migration } from 'kysely'
import * as m0013 from './0013_create_leaderboards.js'
import * as m0014 from './0014_create_leaderboard_entries.js'
import * as m0015 from './0015_create_leaderboard_counts.js'
import * as m0016 from './0016_create_leaderboard_bans.js'
import * as m0090 from './0090_leaderboard_counts_without_rowid.js'
import * as m0092 from './0092_leaderboard_rank_index_covers_score.js'
import * as m0131 from './0131_leaderboard_submit_routine.js'
import * as m0161 from './0161_leaderboard_count_slots.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0013_create_leaderboards': m0013,
  '0014_create_leaderboard_entries': m0014,
  '0015_create_leaderboard_counts': m0015,
  '0016_create_leaderboard_bans': m0016,
  '0090_leaderboard_counts_without_rowid': m0090,
  '0092_leaderboard_rank_index_covers_score': m0092,
  '0131_leaderboard_submit_routine': m0131,
  '0161_leaderboard_count_slots': m0161,
}
