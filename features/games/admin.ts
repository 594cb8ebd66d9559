// The server's games (contract §14): list, create, read, rename and erase. Keys and settings are in
// admin-keys.ts. Writes are owners' (admin-access.ts lets any role read the list and a game it holds
// a role in); each runs in the request's transaction in the server's database with its audit entry,
// and this instance reloads its copy of the games once it has committed.
import type { FastifyInstance } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { afterRequestCommit } from '../../db/transaction.js'
import { roleIn } from '../../platform/security/admin-auth.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { page } from '../../platform/openapi/examples.js'
import {
  GameCreateBodySchema,
  GameCreatedSchema,
  GameDeleteBodySchema,
  GameListQuerySchema,
  GameListSchema,
  GameParamsSchema,
  GameSchema,
  GameUpdateBodySchema,
} from './schemas.js'
import {
  beginErasure,
  createGame,
  finishErasure,
  listGames,
  prepareGameStore,
  readGame,
  renameGame,
} from './service.js'
import { manifest } from './manifest.js'
import * as examples from './docs.js'

/** The admin surface's security: the key, or an operator's session. */
export const security: Array<Record<string, string[]>> = [{ adminKey: [] }, { adminSession: [] }]

/**
 * Runs `step` once the request's transaction has committed (before the answer leaves), or now outside
 * one; a failure is logged, never answered: the write it follows stands.
 */
export async function afterCommit(app: FastifyInstance, step: () => Promise<void>, failed: string): Promise<void> {
  const safe = () => step().catch((error: unknown) => app.log.warn({ err: error }, failed))
  if (!afterRequestCommit(safe)) await safe()
}

const gamesAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest, { adminSecurity: security })
  const reload = () =>
    afterCommit(app, () => app.games.reload(), 'the games could not be reloaded; they are within a second')

  app.get(
    '/games',
    {
      schema: route.admin({
        summary: 'The games you hold a role in',
        querystring: GameListQuerySchema,
        response: { 200: GameListSchema },
        errors: [404],
        docs: {
          description:
            'Every game of the server for an owner and the X-Admin-Key; for another operator the games they hold a ' +
            'role in, each with that role. `default` first, then by id; one page. With `stats=true` each game also ' +
            'answers its players, its players active today (UTC) and its crash-free session rate (null without a ' +
            'session), read from its own database: a few queries per game.',
          parameters: { stats: true },
          response: page([
            {
              id: 'default',
              name: 'Default',
              createdAt: examples.game.createdAt,
              role: 'owner',
              players: 48210,
              activeToday: 3120,
              crashFreeRate: 0.994,
            },
            { ...examples.game, role: 'owner', players: 1200, activeToday: 85, crashFreeRate: null },
          ]),
        },
      }),
    },
    async (request) => {
      const actor = request.adminActor!
      return listGames(app.games, (gameId) => roleIn(actor, gameId), {
        stats: request.query.stats === true,
        now: app.clock.now(),
      })
    },
  )

  app.post(
    '/games',
    {
      schema: route.admin({
        summary: 'Create a game',
        body: GameCreateBodySchema,
        response: { 201: GameCreatedSchema },
        errors: [403, 404, 409, 503],
        docs: {
          description:
            'Makes the game’s database (every table, by the same migrations: a second or a few; see ' +
            'docs/several-games.md), then its row and its first app key, whose secret `key.key` is answered this ' +
            'once. An id is 1 to 32 lower-case letters, digits and dashes, starting with a letter or digit; one the ' +
            'database server cannot name (too long beside DB_NAME): 400 VALIDATION_ERROR. An id in use, or ' +
            `of a game being erased: 409 CONFLICT. ${examples.RELOADED} ${examples.OWNER_ONLY}`,
          request: { id: examples.game.id, name: examples.game.name },
          response: { ...examples.game, key: { ...examples.key, label: 'first key', key: examples.secret } },
        },
      }),
      // Before the request's transaction opens: the migrations run on connections of their own.
      preHandler: async (request) => prepareGameStore(app.games, app.config, request.body.id),
    },
    async (request, reply) => {
      const created = await createGame(app.db, request.body.id, request.body.name, app.clock.now())
      await reload()
      reply.code(201)
      return created
    },
  )

  app.get(
    '/games/:gameId',
    {
      schema: route.admin({
        summary: 'One game',
        params: GameParamsSchema,
        response: { 200: GameSchema },
        errors: [404],
        docs: {
          description: `Any role in the game. ${examples.NOT_FOUND}`,
          parameters: { gameId: examples.game.id },
          response: examples.game,
        },
      }),
    },
    async (request) => readGame(app.db, request.params.gameId),
  )

  app.patch(
    '/games/:gameId',
    {
      schema: route.admin({
        summary: 'Rename a game',
        params: GameParamsSchema,
        body: GameUpdateBodySchema,
        response: { 200: GameSchema },
        errors: [403, 404],
        docs: {
          description: `The name is 1 to 100 characters; the id never changes. ${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          request: { name: 'Space Miner (staging)' },
          response: { ...examples.game, name: 'Space Miner (staging)' },
        },
      }),
    },
    async (request) => {
      const renamed = await renameGame(app.db, request.params.gameId, request.body.name, app.clock.now())
      await reload()
      return renamed
    },
  )

  app.delete(
    '/games/:gameId',
    {
      schema: route.admin({
        summary: 'Erase a game and all its data',
        params: GameParamsSchema,
        body: GameDeleteBodySchema,
        response: { 204: { type: 'null', description: 'Erased' } },
        errors: [403, 404, 409],
        docs: {
          description:
            'Erases everything of the game for good: its database (a file, a database or a schema: see ' +
            'docs/several-games.md), its keys, its settings. The body must repeat the id, `{ "confirm": "<gameId>" }`: otherwise ' +
            '400 VALIDATION_ERROR. `default` cannot be deleted: 409 CONFLICT. From the answer on, the game is gone ' +
            'on every instance within a second; if its database could not be dropped, the next DELETE of the id ' +
            `or the next start finishes it. ${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          request: { confirm: examples.game.id },
        },
      }),
      // A DELETE sent without a body is told what to send, like one without `confirm`.
      preValidation: async (request) => {
        request.body ??= {}
      },
    },
    async (request, reply) => {
      const { gameId } = request.params
      await beginErasure(app.db, gameId, request.body.confirm, app.clock.now())
      await afterCommit(
        app,
        () => finishErasure(app.games, app.config, gameId),
        `the game ${gameId} is erased but its database was not dropped: the next DELETE or start drops it`,
      )
      reply.code(204)
      return null
    },
  )
}

export default gamesAdmin
