import { defineFeature } from '../../platform/core/features.js'
import { APP_PREFIX } from '../../platform/core/paths.js'
import routes from './routes.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
  },
  ['db', 'clock', 'config', 'sessions', 'events'],
)
