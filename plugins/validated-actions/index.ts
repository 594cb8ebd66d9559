// Validated actions: server-checked runs. A run starts with a single-use ticket and a seed;
// its submit passes the operator's rules before the score is written and the player's values change.
// A ticket is accepted at most once and its effects happen at most once, under any concurrency.
import fp from 'fastify-plugin'
import { ADMIN_PREFIX, APP_PREFIX } from '../core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import { components, docs } from './docs.js'

export default fp(
  async (app) => {
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(admin, { prefix: ADMIN_PREFIX })
  },
  { name: 'validated-actions', dependencies: ['db', 'clock', 'sessions', 'events', 'metrics'] },
)
