// Leaderboards: submit, top, rank, around and the board list, on the self-hosted paths
// (/leaderboard/..., default board or leaderboardKey) and the hosted ones (/leaderboards/{boardKey}/...).
// Top, rank and around agree on every position; rank and around never scan the board (see ranking.ts).
import { adminRoutes, defineFeature, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { removeDeletedUserEntries, exportForUser } from './service.js'
import { TopPageCache } from './top-cache.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'

export const manifest: FeatureManifest = {
  name: 'leaderboard',
  tag: 'Leaderboard',
  adminRights: GAME_RIGHTS,
  tables: ['leaderboards', 'leaderboard_entries', 'leaderboard_counts', 'leaderboard_bans'],
  counters: {
    scoreSubmits: {
      name: 'outpost_score_submits_total',
      help: 'Scores accepted through the leaderboard submit routes (validated runs are counted apart)',
    },
  },
  caches: ['leaderboard_top'],
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
    app.events.onBoardChanged((boardId, fromPosition) => topPages.boardChanged(boardId, fromPosition))
    // Pages show names and public profiles: a change to either on this instance shows on the next read.
    app.events.onPublicPlayerChanged(() => topPages.everythingChanged())
    // The users cascade deletes a user's entries but cannot update the count tree: do it first.
    app.events.onUserDeleting((trx, userId) => removeDeletedUserEntries(trx, app.events, userId))
    app.openapi.describe({}, components)
    app.events.onUserExport(async (db, userId) => {
      const { entries, bans } = await exportForUser(db, userId)
      return { leaderboardEntries: entries, leaderboardBans: bans }
    })
    await app.register(routes, { prefix: APP_PREFIX, topPages })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events', 'metrics'],
)
