import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors } from '../../platform/schemas/common.js'
import { SettingListSchema, SettingsQuerySchema } from './schemas.js'
import { maskedSettings } from './service.js'

/** `GET /api/v1/admin/settings`: the configuration, read-only, for the console's settings page. */
const settingsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/settings',
    {
      schema: {
        tags: ['Admin', 'Settings'],
        security: [{ adminKey: [] }, { adminSession: [] }],
        summary: 'The configuration in effect, secrets masked',
        querystring: SettingsQuerySchema,
        response: { 200: SettingListSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async () => ({ items: maskedSettings(app.config) }),
  )
}

export default settingsAdmin
