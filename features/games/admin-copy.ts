// The owner's promotion of content between games (contract §14): POST /games/{gameId}/copy-from.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { badRequest } from '../../platform/core/errors.js'
import { gameNotFound } from '../../platform/games/store.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { copyBetweenGames } from './copy.js'
import { CopyBodySchema, CopyParamsSchema, CopyResultSchema } from './copy-schemas.js'

const DESCRIPTION =
  'Makes the chosen parts of this game (the target, `gameId`) equal to those of `source`, and answers the ' +
  "difference per part: `added`, `changed` (`from` the target's value `to` the source's) and `removed`, with the " +
  'values. `parts` among `remoteConfig`, `localization` (keyed `<language>/<key>`), `news` (by id), `cosmetics`, ' +
  "`leaderboards` (the boards' definitions, never their entries), `validatedActions` (rule sets keyed " +
  '`rules/<boardKey>`, value definitions `values/<key>`) and `emailTemplates`. `dryRun: true` answers the ' +
  "difference and changes nothing; otherwise every part is written in one transaction on the target's database " +
  '(the source is read first): a failure in any part leaves the target as it was. A board the source lacks is ' +
  'listed under `removed` but kept, with its entries, since deleting a board deletes its scores: delete it ' +
  "through its own route if meant. A value definition removed leaves the players' balances of it. Rule sets need " +
  'their boards in the target (copy `leaderboards` with them, else 404 LEADERBOARD_NOT_FOUND and nothing changes). ' +
  'Players see the new content within a second (the content caches read the change counters the writes bump). ' +
  'Owners only; audited. 404 `GAME_NOT_FOUND` for an unknown game; 400 `VALIDATION_ERROR` for an unknown part ' +
  'or a source that is the target.'

/** The copy route, registered by the games feature under the admin prefix (adminRoutes). */
const gamesCopyAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.post(
    '/games/:gameId/copy-from',
    {
      schema: route.admin({
        summary: "Promote content between games: make parts of this game equal to another game's",
        params: CopyParamsSchema,
        body: CopyBodySchema,
        response: { 200: CopyResultSchema },
        errors: [404],
        docs: {
          description: DESCRIPTION,
          parameters: { gameId: 'production' },
          request: { source: 'staging', parts: ['remoteConfig', 'leaderboards'], dryRun: true },
          response: {
            source: 'staging',
            target: 'production',
            dryRun: true,
            parts: {
              remoteConfig: {
                added: [{ key: 'shop.discount', value: '0.2' }],
                changed: [{ key: 'motd', from: 'Welcome', to: 'Season 2 is here' }],
                removed: [{ key: 'beta.banner', value: 'on' }],
              },
              leaderboards: { added: [], changed: [], removed: [] },
            },
          },
        },
      }),
    },
    async (request) => {
      const { gameId } = request.params
      const { source: sourceId, parts, dryRun = false } = request.body
      const target = app.games.get(gameId)
      if (!target) throw gameNotFound(gameId)
      const source = app.games.get(sourceId)
      if (!source) throw gameNotFound(sourceId)
      if (source.id === target.id) {
        throw badRequest('body/source must be another game than the target (the gameId of the path)', '/source')
      }
      // The request's own game (the audit entry's database) is reached through its transaction.
      const dbOf = (game: typeof source) => (game.id === request.game.id ? request.db : game.db)
      return copyBetweenGames({
        source: { id: source.id, db: dbOf(source) },
        target: { id: target.id, db: dbOf(target) },
        parts,
        dryRun,
        events: app.events,
        now: app.clock.now(),
      })
    },
  )
}

export default gamesCopyAdmin
