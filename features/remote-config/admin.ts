// The operator's remote config: list, set one key, delete one, import many at once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AdminConfigListQuerySchema,
  AdminConfigListSchema,
  AdminConfigSchema,
  ConfigDeletedSchema,
  ConfigKeyParamsSchema,
  ImportConfigsBodySchema,
  ImportConfigsResponseSchema,
  PutConfigBodySchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import type { PerGame } from '../../platform/games/registry.js'
import { deleteConfig, importConfigs, listConfigs, putConfig, type RemoteConfigView } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const remoteConfigAdmin: FastifyPluginAsyncTypebox<{ cache: PerGame<ContentCache<RemoteConfigView>> }> = async (
  app,
  { cache },
) => {
  const route = routesOf(manifest)
  app.get(
    '/remote-config',
    {
      schema: route.admin({
        summary: 'Every config value, most recently changed first',
        querystring: AdminConfigListQuerySchema,
        response: { 200: AdminConfigListSchema },
        docs: {
          description:
            'Every config value, most recently changed first; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { limit: 50 },
          response: page([examples.stored]),
        },
      }),
    },
    async (request) => listConfigs(request.db, request.query),
  )

  app.put(
    '/remote-config/:configKey',
    {
      schema: route.admin({
        summary: 'Create or replace one config value',
        params: ConfigKeyParamsSchema,
        body: PutConfigBodySchema,
        response: { 200: AdminConfigSchema },
        errors: [409],
        docs: {
          description:
            'Creates or replaces one value (a string of at most 65,536 characters). `all` and `filter` are reserved keys (400). 409 ' +
            '`CONFLICT` when the key was deleted while it was being written: retry. Players see the change on their next read.',
          parameters: { configKey: 'shop.discount' },
          request: { value: '0.2' },
          response: examples.stored,
        },
      }),
    },
    async (request) =>
      cache
        .of(request.game)
        .afterWrite(putConfig(request.db, request.params.configKey, request.body.value, app.clock.now())),
  )

  app.delete(
    '/remote-config/:configKey',
    {
      schema: route.admin({
        summary: 'Delete one config value',
        params: ConfigKeyParamsSchema,
        response: { 200: ConfigDeletedSchema },
        errors: [404],
        docs: {
          description: 'Deletes one value. 404 `NOT_FOUND`.',
          parameters: { configKey: 'shop.discount' },
          response: { configKey: 'shop.discount', deleted: true },
        },
      }),
    },
    async (request) => {
      await cache.of(request.game).afterWrite(deleteConfig(request.db, request.params.configKey))
      return { configKey: request.params.configKey, deleted: true as const }
    },
  )

  app.post(
    '/remote-config/import',
    {
      schema: route.admin({
        summary: 'Create or replace many config values in one transaction (all or nothing)',
        body: ImportConfigsBodySchema,
        response: { 200: ImportConfigsResponseSchema },
        errors: [413],
        docs: {
          description:
            'Creates or replaces many values in one transaction, all or nothing: `configs` maps keys (the key rule above) to ' +
            'values, at most 5000 keys; existing keys not named are kept. A bad key or value is 400 and nothing changes; 413 ' +
            'for a body over the route limit.',
          request: { configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' } },
          response: { imported: 2, configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' } },
        },
      }),
    },
    async (request) =>
      cache.of(request.game).afterWrite(importConfigs(request.db, request.body.configs, app.clock.now())),
  )
}

export default remoteConfigAdmin
