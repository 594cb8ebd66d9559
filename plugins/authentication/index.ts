// Authentication (API.md §3): anonymous accounts and sessions. Tokens are random, returned once and
// stored only as SHA-256 digests; a user may hold several sessions; refresh tokens rotate and a
// replayed one revokes its whole family.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../schemas/common.js'
import { AuthResponseSchema, SigninBodySchema, SignupBodySchema } from '../../schemas/authentication.js'
import { signin, signup, type AuthDeps } from './service.js'

const tags = ['Authentication']

const authentication: FastifyPluginAsyncTypebox = async (app) => {
  const deps: AuthDeps = {
    db: app.db,
    now: () => app.clock.now(),
    lifetimes: {
      sessionTtlMs: app.config.SESSION_TTL_SECONDS * 1000,
      refreshTtlMs: app.config.REFRESH_TTL_SECONDS * 1000,
    },
  }

  app.post(
    '/user-management/signup',
    {
      schema: {
        tags,
        summary: 'Create an anonymous account and its first session',
        body: SignupBodySchema,
        response: { 201: AuthResponseSchema, ...errors(400, 401, 409, 429) },
      },
    },
    async (request, reply) => reply.code(201).send(await signup(deps, request.body)),
  )

  app.post(
    '/user-management/signin',
    {
      schema: {
        tags,
        summary: 'Sign in with an anonymous token, or renew a session with a refresh token',
        body: SigninBodySchema,
        response: { 200: AuthResponseSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => signin(deps, request.body),
  )
}

export default authentication
