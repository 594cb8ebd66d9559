// E-mail sending: a player's game mails that player, at their account address, from
// an operator's client-callable template. Sends are checked in the contract's order and counted
// against an hourly quota in SQL; the worker (worker.ts) delivers them; status and cancel need no SMTP.
import fp from 'fastify-plugin'
import { ADMIN_PREFIX, APP_PREFIX } from '../core/paths.js'
import routes from './routes.js'
import admin from './admin.js'
import worker from './worker.js'
import { components, docs } from './docs.js'

export default fp(
  async (app) => {
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(admin, { prefix: ADMIN_PREFIX })
    // Decorates the app with `emailWorker` (fastify-plugin), which tests drive by hand.
    await app.register(worker)
  },
  { name: 'email-sending', dependencies: ['db', 'clock', 'config', 'sessions', 'metrics', 'health'] },
)
