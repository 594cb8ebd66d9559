import fp from 'fastify-plugin'
import { routeSurface } from './paths.js'

/**
 * Stamps every route, when it is registered, with the gate its requests pass (paths.ts). Keys and
 * rate limits then read the matched route's stamp, never the raw request target, which the router
 * decodes (`/%61pi/v1/%61dmin/users` matches `/api/v1/admin/users`) and a string test would not.
 * Registered before any route, so no route escapes it.
 */
export default fp(
  async (app) => {
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, surface: routeSurface(route.url, route.config?.public) }
    })
  },
  { name: 'surfaces' },
)
