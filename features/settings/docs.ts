import type { OperationDocs } from '../../platform/openapi/index.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'

export const settingsDocs: OperationDocs = {
  [`GET ${ADMIN_PREFIX}/settings`]: {
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
}
