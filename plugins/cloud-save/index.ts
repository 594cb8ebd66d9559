// Cloud save: one save per player, as JSON text (`data`, compat `saveData`) or as raw
// bytes (octet-stream), loaded back byte-exact either way. The version counts saves; a save that
// expects a version no longer stored is refused (409) by the database, never by a read in JS; an
// oversize save is refused (413) before its body is buffered whole and leaves the stored save as it was.
import fp from 'fastify-plugin'
import { APP_PREFIX } from '../core/paths.js'
import routes from './routes.js'
import { components, docs } from './docs.js'

export default fp(
  async (app) => {
    app.openapi.describe(docs, components)
    await app.register(routes, { prefix: APP_PREFIX })
  },
  { name: 'cloud-save', dependencies: ['db', 'clock', 'config', 'sessions'] },
)
