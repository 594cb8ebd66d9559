// The app routes of remote config: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import {
  AllConfigsResponseSchema,
  ConfigKeyParamsSchema,
  ConfigResponseSchema,
  FilterQuerySchema,
  FilterResponseSchema,
  NotModifiedSchema,
} from './schemas.js'
import type { ContentCache } from '../../platform/content/content-cache.js'
import type { PerGame } from '../../platform/games/registry.js'
import { answeredNotModified } from '../../platform/http/etag.js'
import { filterConfigs, parsePattern, type RemoteConfigView } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import * as examples from './docs.js'

const remoteConfig: FastifyPluginAsyncTypebox<{ cache: PerGame<ContentCache<RemoteConfigView>> }> = async (
  app,
  { cache },
) => {
  const route = routesOf(manifest)
  // Static paths win over the parameter in Fastify's router: `all` and `filter` are never keys here.
  app.get(
    '/remote-config/all',
    {
      schema: route.app({
        summary: 'Every config value (ETag / If-None-Match)',
        response: { 200: AllConfigsResponseSchema, 304: NotModifiedSchema },
        docs: {
          description: `Every config value as \`{ key: value }\` with their count. ${examples.ETAG}`,
          response: { configs: { 'shop.discount': '0.2', 'ui.theme': 'dark' }, total: 2 },
        },
      }),
    },
    async (request, reply) => {
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      // Serialized once per version (the largest, most requested body): Fastify sends a string with a
      // JSON content type as it is, without running the serializer again.
      return reply.type('application/json; charset=utf-8').send(view.allJson as never)
    },
  )

  app.get(
    '/remote-config/filter',
    {
      schema: route.app({
        summary: 'Config values whose keys match a wildcard pattern (ETag / If-None-Match)',
        querystring: FilterQuerySchema,
        response: { 200: FilterResponseSchema, 304: NotModifiedSchema },
        docs: {
          description:
            'The values whose keys match `pattern` (compat): key text (`[A-Za-z0-9._-]`) with up to 10 `*` wildcards, no `**`, ' +
            '≤ 102 characters; a bad pattern is 400. `matchType` says how it was read: `PREFIX` (no wildcard, or one trailing ' +
            `\`*\`), \`SUFFIX\` (one leading \`*\`), \`CONTAINS\` (\`*text*\`), else \`GLOB\`. ${examples.ETAG}`,
          parameters: { pattern: 'shop.*' },
          response: { configs: { 'shop.discount': '0.2' }, total: 1, pattern: 'shop.*', matchType: 'PREFIX' },
        },
      }),
    },
    async (request, reply) => {
      const pattern = parsePattern(request.query.pattern)
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      const configs = filterConfigs(view, pattern)
      return { configs, total: Object.keys(configs).length, pattern: pattern.pattern, matchType: pattern.matchType }
    },
  )

  app.get(
    '/remote-config/:configKey',
    {
      schema: route.app({
        summary: 'One config value (`found: false` and `configValue: null` when unknown; ETag / If-None-Match)',
        params: ConfigKeyParamsSchema,
        response: { 200: ConfigResponseSchema, 304: NotModifiedSchema },
        docs: {
          description:
            'One value. Keys: 1–128 characters of letters, digits, `.`, `_`, `-` (`all` and `filter` are reserved). An unknown ' +
            `key is not an error: \`found: false\`, \`configValue: null\`. ${examples.ETAG}`,
          parameters: { configKey: 'shop.discount' },
          response: { configKey: 'shop.discount', configValue: '0.2', found: true },
        },
      }),
    },
    async (request, reply) => {
      const { configKey } = request.params
      const view = await cache.of(request.game).get()
      if (answeredNotModified(request, reply, view.etag)) return reply
      const value = view.values.get(configKey)
      return { configKey, configValue: value ?? null, found: value !== undefined }
    },
  )
}

export default remoteConfig
