import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { SettingListSchema, SettingsQuerySchema } from './schemas.js'
import { maskedSettings } from './service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'

/** `GET /api/v1/admin/settings`: the configuration, read-only, for the console's settings page. */
const settingsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  // The console's session is the owner's way in here, beside the key.
  const route = routesOf(manifest, { adminSecurity: [{ adminKey: [] }, { adminSession: [] }] })
  app.get(
    '/settings',
    {
      schema: route.admin({
        summary: 'The configuration in effect, secrets masked',
        querystring: SettingsQuerySchema,
        response: { 200: SettingListSchema },
        errors: [403, 404],
        docs: {
          description:
            'Every setting of the settings table in docs/configuration.md with the value in effect, read-only (settings change only ' +
            'through the environment or `.env`, and a restart). Secrets — API keys, passwords, tokens, private keys, and ' +
            'any setting whose name says key, secret, pass, token or private — answer `"[set]"` when configured and ' +
            '`null` when not, never the value; a URL loses its user name, password, secret-named query values and fragment. ' +
            'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.',
          response: {
            items: [
              {
                name: 'API_KEY',
                value: '[set]',
                secret: true,
                set: true,
                isDefault: false,
                description: 'Key every game client sends as X-API-Key',
              },
              { name: 'PORT', value: 8080, secret: false, set: true, isDefault: true, description: 'TCP port' },
              {
                name: 'SMTP_URL',
                value: 'smtps://[redacted]@mail.example.com:465',
                secret: true,
                set: true,
                isDefault: false,
                description: 'smtp:// or smtps:// URL; unset = e-mail disabled',
              },
            ],
          },
        },
      }),
    },
    async () => ({ items: maskedSettings(app.config) }),
  )
}

export default settingsAdmin
