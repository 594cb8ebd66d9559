// Remote config (API.md §5.5): string values by key, all of them, or those matching a pattern.
// Served from an in-process copy (no database round trip while nothing changed); an admin write shows
// at once on the instance that made it and within CONTENT_CHECK_INTERVAL_MS (1 s) on every other one.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import {
  AllConfigsResponseSchema,
  ConfigKeyParamsSchema,
  ConfigResponseSchema,
  FilterQuerySchema,
  FilterResponseSchema,
  NotModifiedSchema,
} from '../../schemas/remote-config.js'
import { contentCache } from '../core/content-cache.js'
import { answeredNotModified } from '../core/etag.js'
import { filterConfigs, loadRemoteConfig, parsePattern } from './service.js'

const tags = ['Remote Config']

const remoteConfig: FastifyPluginAsyncTypebox = async (app) => {
  const cache = contentCache(app, 'remote-config', loadRemoteConfig)

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
