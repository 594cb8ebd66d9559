// Crash reporting: sessions and crash reports exactly as the SDKs send them. Ingestion
// never loses a report: every field but `type` may be missing or empty, over-long fields are shortened
// (and the answer says so), and grouping counters are kept by the database under any concurrency.
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
  { name: 'crash-reporting', dependencies: ['db', 'clock', 'metrics'] },
)
