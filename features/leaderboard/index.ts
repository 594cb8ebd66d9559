// Leaderboards: submit, top, rank, around and the board list, on the self-hosted paths
// (/leaderboard/..., default board or leaderboardKey) and the hosted ones (/leaderboards/{boardKey}/...).
// Top, rank and around agree on every position; rank and around never scan the board (see ranking.ts).
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { removeDeletedUserEntries, exportForUser } from './service.js'
import { TopPageCache } from './top-cache.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { LeaderboardExportSchema, NewLeaderEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    // Top pages come from an in-process cache, kept as serialized bodies (see top-cache.ts).
    const topPages = new TopPageCache(
      app.config.LEADERBOARD_CACHE_MS,
      undefined,
      app.metrics.cacheLookup('leaderboard_top'),
    )
    app.events.on('boardChanged', (boardId, fromPosition) => topPages.boardChanged(boardId, fromPosition))
    // Pages show names and public profiles: a change to either on this instance shows on the next read.
    app.events.on('publicPlayerChanged', () => topPages.everythingChanged())
    // The users cascade deletes a user's entries but cannot update the count tree: do it first.
    app.events.onInTransaction('userDeleting', (trx, userId) => removeDeletedUserEntries(trx, app.events, userId))
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, topPages })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events', 'metrics'],
)
