// In openapi/, not in core/features.ts: what it stamps (tags, security, error answers, docs) is what the
// document says of a route, and core/ may not import the document's types.
import type { FastifySchema } from 'fastify'
import type { FeatureManifest } from '../core/features.js'
import { ErrorSchema } from '../schemas/common.js'
import { withOperationDoc, type OperationDoc } from './document.js'

/** A security requirement of OpenAPI: the schemes that, together, admit a request. */
export type Security = Array<Record<string, string[]>>

/** What a route says of itself: its schema, its summary, its own errors and its docs. */
export type RouteSpec = Omit<FastifySchema, 'response'> & {
  summary: string
  response: Record<number, unknown>
  /** The error statuses particular to the route, beyond the ones every route of its surface gives. */
  errors?: readonly number[]
  /** The operation's prose and examples, put into /docs/json by the OpenAPI plugin. */
  docs?: OperationDoc
  /** A route's own security requirement (an inferred literal, hence loosely typed), instead of its surface's. */
  security?: readonly object[]
}

/** The route's schema as Fastify takes it: the spec with the surface's stamps. */
export type RouteSchema<S extends RouteSpec> = Omit<S, 'errors' | 'docs'> & { tags: string[] }

/** The admin surface's default security: the operator's key. */
const ADMIN_SECURITY: Security = [{ adminKey: [] }]

/**
 * Every route answers 401 (no or wrong key) and 429 (rate limit), and 400 when it takes input to
 * validate; the statuses the route names itself are added to these.
 */
function stamped<S extends RouteSpec>(spec: S, tags: string[], security: Security | undefined): RouteSchema<S> {
  const { errors = [], docs, ...schema } = spec
  const input = schema.querystring !== undefined || schema.params !== undefined || schema.body !== undefined
  const shared = [...(input ? [400] : []), 401, 429, ...errors]
  const response = { ...schema.response, ...Object.fromEntries(shared.map((status) => [status, ErrorSchema])) }
  const result = { ...schema, tags, ...(security && !schema.security && { security }), response }
  return (docs ? withOperationDoc(result, docs) : result) as unknown as RouteSchema<S>
}

/**
 * A feature's route declarations: `app` stamps the manifest's tag, `admin` stamps 'Admin' and the tag
 * with the admin security; both add the shared error answers, so a route states only what is its own.
 */
export function routesOf(manifest: FeatureManifest, options: { adminSecurity?: Security } = {}) {
  return {
    app: <S extends RouteSpec>(spec: S) => stamped(spec, [manifest.tag], undefined),
    admin: <S extends RouteSpec>(spec: S) =>
      stamped(spec, ['Admin', manifest.tag], options.adminSecurity ?? ADMIN_SECURITY),
  }
}
