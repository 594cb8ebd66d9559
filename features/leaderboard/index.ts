import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { removeDeletedUserEntries } from './service.js'
import { TopPageCache } from './top-cache.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    // Top pages come from an in-process cache per game, kept as serialized bodies (see top-cache.ts).
    const topPages = app.games.scoped(
      () => new TopPageCache(app.config.LEADERBOARD_CACHE_MS, undefined, app.metrics.cacheLookup('leaderboard_top')),
    )
    /** The game's cache, when the game is still known (a mark for a game gone has nothing to mark). */
    const pagesOf = (gameId: string) => {
      const game = app.games.get(gameId)
      return game && topPages.of(game)
    }
    app.events.on('boardChanged', (gameId, boardId, fromPosition) =>
      pagesOf(gameId)?.boardChanged(boardId, fromPosition),
    )
    // Pages show names and public profiles: a change to either on this instance shows on the next read.
    app.events.on('publicPlayerChanged', (gameId) => pagesOf(gameId)?.everythingChanged())
    // The users cascade deletes a user's entries but cannot update the count tree: do it first.
    app.events.onInTransaction('userDeleting', (trx, userId) => removeDeletedUserEntries(trx, app.events, userId))
    // A database restored without the submit routine: what happened, in the operator's log.
    app.events.on('submitRoutineMissing', (gameId, restored, message) =>
      restored ? app.log.warn({ game: gameId }, message) : app.log.error({ game: gameId }, message),
    )
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX, topPages })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events', 'metrics'],
)
