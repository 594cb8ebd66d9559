// A game's app keys and its own settings (contract §14): owners only. Each write commits in the
// server's database with its audit entry (`game`: the game it was for), then this instance reloads its
// copy of the games, so its next request already holds the change; the others follow within a second.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { routesOf } from '../../platform/openapi/routes.js'
import { page } from '../../platform/openapi/examples.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  GameKeyCreateBodySchema,
  GameKeyCreatedSchema,
  GameKeyListSchema,
  GameKeyParamsSchema,
  GameKeySchema,
  GameParamsSchema,
  GameSettingsChangeSchema,
  GameSettingsSchema,
} from './schemas.js'
import { addKey, changeSettings, dropKey, gameKeys, readSettings } from './service.js'
import { afterCommit, security } from './admin.js'
import { manifest } from './manifest.js'
import * as examples from './docs.js'

const keysAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest, { adminSecurity: security })
  const reload = () =>
    afterCommit(app, () => app.games.reload(), 'the games could not be reloaded; they are within a second')

  app.get(
    '/games/:gameId/keys',
    {
      schema: route.admin({
        summary: "A game's app keys",
        params: GameParamsSchema,
        response: { 200: GameKeyListSchema },
        errors: [403, 404],
        docs: {
          description:
            'Newest first, revoked ones included (`revokedAt`); never a secret, only its first 8 characters ' +
            '(`prefix`). `lastUsedAt` is written back about once a minute. `default` also takes the API_KEY of ' +
            `the environment, which is not listed. ${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          response: page([
            examples.key,
            {
              ...examples.key,
              id: EX.id,
              label: 'first key',
              prefix: 'opk_7hQm',
              createdAt: EX.earlier,
              lastUsedAt: EX.now,
            },
          ]),
        },
      }),
    },
    async (request) => gameKeys(app.db, request.params.gameId),
  )

  app.post(
    '/games/:gameId/keys',
    {
      schema: route.admin({
        summary: 'Create an app key',
        params: GameParamsSchema,
        body: GameKeyCreateBodySchema,
        response: { 201: GameKeyCreatedSchema },
        errors: [403, 404, 409],
        docs: {
          description:
            'Answers the secret as `key`, this once: only its SHA-256 is kept. A build sends it as X-API-Key, and ' +
            `it decides the game. A game holds at most 100 live keys: 409 CONFLICT past it. ${examples.RELOADED} ` +
            `${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          request: { label: examples.key.label },
          response: { ...examples.key, key: examples.secret },
        },
      }),
    },
    async (request, reply) => {
      const key = await addKey(app.db, request.params.gameId, request.body.label, app.clock.now())
      await reload()
      reply.code(201)
      return key
    },
  )

  app.post(
    '/games/:gameId/keys/:keyId/revoke',
    {
      schema: route.admin({
        summary: 'Revoke an app key',
        params: GameKeyParamsSchema,
        response: { 200: GameKeySchema },
        errors: [403, 404, 409],
        docs: {
          description:
            'From the answer on, app requests with the key are 401 UNAUTHORIZED on this instance, and on every ' +
            'other within a second. A game keeps one live key at least: revoking the last is 409 CONFLICT (create ' +
            'another first; `default` also has API_KEY, so its last stored key may go). Revoking a revoked key ' +
            `answers it as it is. An unknown key: 404 KEY_NOT_FOUND. ${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id, keyId: examples.key.id },
          response: { ...examples.key, revokedAt: EX.now },
        },
      }),
    },
    async (request) => {
      const { gameId, keyId } = request.params
      const key = await dropKey(app.db, gameId, keyId, app.clock.now())
      await reload()
      return key
    },
  )

  app.get(
    '/games/:gameId/settings',
    {
      schema: route.admin({
        summary: "A game's settings",
        params: GameParamsSchema,
        response: { 200: GameSettingsSchema },
        errors: [403, 404],
        docs: {
          description:
            'The settings in force for the game: the sign-in mode (AUTH_MODE), the app rate limit per second and ' +
            'address, the audiences of Apple and Google sign-in, the e-mail sender and the CORS origins. Each is ' +
            "the environment's value unless the game set its own; `overridden` names those it set. " +
            `${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          response: examples.settings,
        },
      }),
    },
    async (request) => readSettings(app.db, app.config, request.params.gameId),
  )

  app.patch(
    '/games/:gameId/settings',
    {
      schema: route.admin({
        summary: "Change a game's settings",
        params: GameParamsSchema,
        body: GameSettingsChangeSchema,
        response: { 200: GameSettingsSchema },
        errors: [403, 404],
        docs: {
          description:
            'Any of the fields; the others stay as they are. `null` gives a field back to the environment’s value. ' +
            'Answers the settings in force. ' +
            `${examples.RELOADED} ${examples.NOT_FOUND} ${examples.OWNER_ONLY}`,
          parameters: { gameId: examples.game.id },
          request: { authMode: 'strict', emailFrom: 'Space Miner <noreply@example.com>', corsOrigins: null },
          response: examples.settings,
        },
      }),
    },
    async (request) => {
      const view = await changeSettings(app.db, app.config, request.params.gameId, request.body, app.clock.now())
      await reload()
      return view
    },
  )
}

export default keysAdmin
