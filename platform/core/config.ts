import fp from 'fastify-plugin'
import type { Config } from '../../config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

/** Decorates the validated config onto the instance (the only place the app gets settings from). */
export default fp<{ config: Config }>(
  async (app, opts) => {
    app.decorate('config', Object.freeze({ ...opts.config }))
  },
  { name: 'config' },
)
