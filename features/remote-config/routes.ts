// The app routes of remote config: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  AllConfigsResponseSchema,
  ConfigKeyParamsSchema,
  ConfigResponseSchema,
  FilterQuerySchema,
  FilterResponseSchema,
  NotModifiedSchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import { answeredNotModified } from '../../platform/http/etag.js'
import { filterConfigs, parsePattern, type RemoteConfigView } from './service.js'

const tags = ['Remote Config']

const remoteConfig: FastifyPluginAsyncTypebox<{ cache: ContentCache<RemoteConfigView> }> = async (app, { cache }) => {
  // Static paths win over the parameter in Fastify's router: `all` and `filter` are never keys here.
  app.get(
    '/remote-config/all',
    {
      schema: {
        tags,
        summary: 'Every config value (ETag / If-None-Match)',
        response: { 200: AllConfigsResponseSchema, 304: NotModifiedSchema, ...errors(401, 429) },
      },
    },
    async (request, reply) => {
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      // Serialized once per version (the largest, most requested body): Fastify sends a string with a
      // JSON content type as it is, without running the serializer again.
      return reply.type('application/json; charset=utf-8').send(view.allJson as never)
    },
  )

  app.get(
    '/remote-config/filter',
    {
      schema: {
        tags,
        summary: 'Config values whose keys match a wildcard pattern (ETag / If-None-Match)',
        querystring: FilterQuerySchema,
        response: { 200: FilterResponseSchema, 304: NotModifiedSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const pattern = parsePattern(request.query.pattern)
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      const configs = filterConfigs(view, pattern)
      return { configs, total: Object.keys(configs).length, pattern: pattern.pattern, matchType: pattern.matchType }
    },
  )

  app.get(
    '/remote-config/:configKey',
    {
      schema: {
        tags,
        summary: 'One config value (`found: false` and `configValue: null` when unknown; ETag / If-None-Match)',
        params: ConfigKeyParamsSchema,
        response: { 200: ConfigResponseSchema, 304: NotModifiedSchema, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const { configKey } = request.params
      const view = await cache.get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      const value = view.values.get(configKey)
      return { configKey, configValue: value ?? null, found: value !== undefined }
    },
  )
}

export default remoteConfig
