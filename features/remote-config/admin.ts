// The operator's remote config: list, set one key, delete one, import many at once.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
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
import { deleteConfig, importConfigs, listConfigs, putConfig, type RemoteConfigView } from './service.js'

const tags = ['Admin', 'Remote Config']
const security = [{ adminKey: [] }]

const remoteConfigAdmin: FastifyPluginAsyncTypebox<{ cache: ContentCache<RemoteConfigView> }> = async (
  app,
  { cache },
) => {
  app.get(
    '/remote-config',
    {
      schema: {
        tags,
        security,
        summary: 'Every config value, most recently changed first',
        querystring: AdminConfigListQuerySchema,
        response: { 200: AdminConfigListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listConfigs(app.db, request.query),
  )

  app.put(
    '/remote-config/:configKey',
    {
      schema: {
        tags,
        security,
        summary: 'Create or replace one config value',
        params: ConfigKeyParamsSchema,
        body: PutConfigBodySchema,
        response: { 200: AdminConfigSchema, ...errors(400, 401, 409, 429) },
      },
    },
    async (request) =>
      cache.afterWrite(putConfig(app.db, request.params.configKey, request.body.value, app.clock.now())),
  )

  app.delete(
    '/remote-config/:configKey',
    {
      schema: {
        tags,
        security,
        summary: 'Delete one config value',
        params: ConfigKeyParamsSchema,
        response: { 200: ConfigDeletedSchema, ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      await cache.afterWrite(deleteConfig(app.db, request.params.configKey))
      return { configKey: request.params.configKey, deleted: true as const }
    },
  )

  app.post(
    '/remote-config/import',
    {
      schema: {
        tags,
        security,
        summary: 'Create or replace many config values in one transaction (all or nothing)',
        body: ImportConfigsBodySchema,
        response: { 200: ImportConfigsResponseSchema, ...errors(400, 401, 413, 429) },
      },
    },
    async (request) => cache.afterWrite(importConfigs(app.db, request.body.configs, app.clock.now())),
  )
}

export default remoteConfigAdmin
