import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { LeaderboardExportSchema, NewLeaderEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Leaderboards' tables, submit counter, top cache, new-leader event and export part, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'leaderboard',
  tag: 'Leaderboard',
  adminRights: GAME_RIGHTS,
  tables: ['leaderboards', 'leaderboard_entries', 'leaderboard_counts', 'leaderboard_bans'],
  migrations,
  counters: {
    scoreSubmits: {
      name: 'outpost_score_submits_total',
      help: 'Scores accepted through the leaderboard submit routes (validated runs are counted apart)',
    },
  },
  caches: ['leaderboard_top'],
  events: [{ type: 'leaderboard.new_leader', title: 'New leader', payload: NewLeaderEventSchema }],
  playerExport: exportPart({
    schema: LeaderboardExportSchema,
    read: async (db, userId) => {
      const { entries, bans } = await exportForUser(db, userId)
      return { leaderboardEntries: entries, leaderboardBans: bans }
    },
  }),
}
