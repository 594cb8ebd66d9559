// The app routes of player profiles: what the feature guarantees is in index.ts.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  ProfileDocumentSchema,
  ProfileQuerySchema,
  ProfileUpdateBodySchema,
  type ProfileUpdateBody,
} from './schemas.js'
import { checkProfileBody, getProfileDocument, updateProfile, type ProfileLimits } from './service.js'

const tags = ['Player Profile']
const security = [{ apiKey: [], session: [] }]

const playerProfile: FastifyPluginAsyncTypebox<{ limits: ProfileLimits }> = async (app, { limits }) => {
  app.get(
    '/player-profile',
    {
      schema: {
        tags,
        security,
        summary: "The player's profile, unlocks and the cosmetics catalog",
        querystring: ProfileQuerySchema,
        response: { 200: ProfileDocumentSchema, ...errors(400, 401, 403, 404, 429) },
      },
      preHandler: app.auth.sessionRequired,
    },
    async (request) => getProfileDocument(app.db, request.identity!.userId, limits),
  )

  app.put(
    '/player-profile',
    {
      schema: {
        tags,
        security,
        summary: 'Replace the visible profile (slots together); name and customData when sent',
        body: ProfileUpdateBodySchema,
        response: { 200: ProfileDocumentSchema, ...errors(400, 401, 403, 404, 429) },
      },
      config: { validate: (request) => void checkProfileBody(request.body as ProfileUpdateBody, limits) },
      preHandler: app.auth.sessionRequired,
    },
    async (request) =>
      updateProfile(app.db, app.events, request.identity!.userId, request.body, limits, app.clock.now()),
  )
}

export default playerProfile
