import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { TSchema } from '@sinclair/typebox'
import { ErrorSchema } from '../schemas/common.js'
import { canonicalJson, referenceNamed, referenceRouteSchema, type Json } from './schemas.js'
import {
  ERROR_COMPONENT,
  finishDocument,
  operationDocOf,
  operationKey,
  operationTagOrder,
  type OperationDoc,
  type OperationDocs,
} from './document.js'

/** The top bar's logo: the name, white on Swagger UI's dark bar. */
const WORDMARK =
  '<svg xmlns="http://www.w3.org/2000/svg" width="150" height="40" viewBox="0 0 150 40">' +
  '<text x="0" y="29" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="28" ' +
  'font-weight="700" fill="#ffffff">Outpost</text></svg>'

/**
 * The CSP of /docs, from @fastify/swagger-ui's. Its `upgrade-insecure-requests` goes: on any host but
 * localhost over plain HTTP (a VM, a LAN box) the browser would fetch the UI's own files over HTTPS and
 * the page would stay blank. Styles may be inline: Swagger UI's script adds a <style> element while it
 * renders (its content changes with every release, so no hash can name it); scripts stay 'self' only.
 */
export function docsCsp(header: string): string {
  return header
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && directive !== 'upgrade-insecure-requests')
    .map((directive) => (directive.startsWith('style-src ') ? "style-src 'self' 'unsafe-inline'" : directive))
    .join('; ')
}

/**
 * Shapes the document names (components/schemas) and references with `$ref` wherever a route's body
 * or response holds an equal schema, instead of repeating them inline.
 */
export type NamedSchemas = Record<string, TSchema>

/** Where features describe their operations, so the document is assembled from the manifests and names no feature. */
export interface OpenApiRegistry {
  /** Adds a feature's operation docs and named shapes; a name or an operation is described once. */
  describe(operations: OperationDocs, components?: NamedSchemas): void
  readonly operations: ReadonlyMap<string, OperationDoc>
  readonly components: ReadonlyMap<string, TSchema>
}

declare module 'fastify' {
  interface FastifyInstance {
    openapi: OpenApiRegistry
  }
}

export type { OperationDoc, OperationDocs } from './document.js'
export {
  adminTag,
  commonAnswers,
  ERROR_COMPONENT,
  errorResponseName,
  finishDocument,
  HEALTH_TAG,
  operationId,
  operationDocOf,
  operationKey,
  operationTagOrder,
  operationTags,
  withOperationDoc,
} from './document.js'
export { canonicalJson, componentRef, referenceNamed, referenceRouteSchema } from './schemas.js'

/**
 * The OpenAPI 3 document, generated from the route schemas: /docs and /docs/json. What the
 * route schemas cannot say well is settled here, once, rather than route by route: the one tag and the
 * operationId of each operation, the error body as one `$ref`'d component, what OpenAPI 3.0 cannot
 * express, and response descriptions.
 */
export default fp(
  async (app) => {
    app.addSchema(ErrorSchema)
    const tagOrder = operationTagOrder(app.features.map((feature) => feature.tag))
    const operations = new Map<string, OperationDoc>()
    const components = new Map<string, TSchema>()
    // Read by the generator when it builds the document (after every feature described itself): each
    // named shape is a getter, so the shapes it contains are references by then.
    const componentSchemas: Json = {}
    let named: Map<string, string> | undefined
    const namedShapes = () => {
      named ??= new Map([...components].map(([name, schema]) => [canonicalJson(schema), name]))
      return named
    }
    const registry: OpenApiRegistry = {
      describe(docs, shapes = {}) {
        for (const [key, doc] of Object.entries(docs)) {
          if (operations.has(key)) throw new Error(`OpenAPI: ${key} is described twice`)
          operations.set(key, doc)
        }
        for (const [name, schema] of Object.entries(shapes)) {
          if (components.has(name) || name === ERROR_COMPONENT) throw new Error(`OpenAPI: ${name} is named twice`)
          components.set(name, schema)
          named = undefined
          Object.defineProperty(componentSchemas, name, {
            enumerable: true,
            get: () => referenceNamed(schema, namedShapes(), true),
          })
        }
      },
      operations,
      components,
    }
    app.decorate('openapi', registry)
    // A route declared with its docs (routes.ts) describes itself; HEAD is GET's twin.
    app.addHook('onRoute', (route) => {
      const doc = operationDocOf(route.schema)
      const methods = [route.method].flat().filter((method) => method !== 'HEAD')
      if (doc) for (const method of methods) registry.describe({ [operationKey(method, route.url)]: doc })
    })
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Outpost',
          description:
            'Self-hosted game backend, compatible with the horizOn SDKs. The game API (`/api/v1/app`, called by the ' +
            'game with its X-API-Key) comes first; the admin API (`/api/v1/admin`, the tags named Admin · …) is the ' +
            `operators' and the console's. Every error has the same body (${ERROR_COMPONENT}).`,
          version: '1',
        },
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            session: { type: 'http', scheme: 'bearer', description: 'accessToken from signup or signin' },
            adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
            adminSession: {
              type: 'apiKey',
              in: 'cookie',
              name: 'outpost_session',
              description:
                'Console session from POST /api/v1/admin/session; writes also need X-Requested-With: outpost-console',
            },
          },
          schemas: componentSchemas,
        },
        security: [{ apiKey: [] }],
      },
      // Shared schemas become components; the error body gets its contract name instead of `def-0`.
      refResolver: {
        buildLocalReference: (json, _baseUri, _fragment, i) =>
          json.$id === ErrorSchema.$id ? ERROR_COMPONENT : `def-${i}`,
      },
      // Routes list the error schema object itself (`errors(...)`) and share shapes by value: point at
      // the named components instead of inlining a copy into every operation (a nameless type in clients).
      transform: ({ schema, url }) => ({ schema: schema && referenceRouteSchema(schema, namedShapes()), url }),
      transformObject: (document) =>
        finishDocument((document as { openapiObject: Json }).openapiObject, registry.operations, tagOrder),
    })
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      // Outpost's name in the top bar and the tab, where Swagger UI would show its own logo and name.
      logo: { type: 'image/svg+xml', content: Buffer.from(WORDMARK), href: '/docs', target: '_self' },
      theme: { title: 'Outpost API' },
      staticCSP: true,
      transformStaticCSP: docsCsp,
    })
  },
  { name: 'openapi', dependencies: ['features'] },
)
