import fp from 'fastify-plugin'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { ErrorSchema } from '../../schemas/common.js'

export const FEATURE_TAGS = [
  'Authentication',
  'Users',
  'Player Profile',
  'Leaderboard',
  'Validated Actions',
  'Cloud Save',
  'Remote Config',
  'Localization',
  'News',
  'Gift Codes',
  'Email Sending',
  'Crash Reporting',
  'User Feedback',
  'User Logs',
] as const

/** The OpenAPI 3 document, generated from the route schemas (API.md §9): /docs and /docs/json. */
export default fp(
  async (app) => {
    app.addSchema(ErrorSchema)
    await app.register(swagger, {
      openapi: {
        openapi: '3.0.3',
        info: {
          title: 'Outpost',
          description: 'Self-hosted game backend, compatible with the horizOn SDKs. Errors share one body (Error).',
          version: '1',
        },
        tags: [...FEATURE_TAGS, 'Health', 'Admin'].map((name) => ({ name })),
        components: {
          securitySchemes: {
            apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
            session: { type: 'http', scheme: 'bearer', description: 'accessToken from signup or signin' },
            adminKey: { type: 'apiKey', in: 'header', name: 'X-Admin-Key' },
          },
        },
        security: [{ apiKey: [] }],
      },
    })
    await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true })
  },
  { name: 'openapi' },
)
