// Background jobs: the maintenance that must stay out of requests (sweeps of expired rows). Features
// add their jobs while they register; each runs for every game, in the game's own database, and each
// run is claimed in SQL (runner.ts, with the leases of outbox.ts), so one instance runs it per period
// and game however many share the database. Started when the app is ready, stopped on close.
import fp from 'fastify-plugin'
import { JobRunner } from './runner.js'

declare module 'fastify' {
  interface FastifyInstance {
    jobs: JobRunner
  }
}

export default fp(
  async (app) => {
    // The games as they are at each pass: a game added or erased meanwhile is followed.
    const runner = new JobRunner(() => app.games.list(), app.clock, app.log.child({ component: 'jobs' }))
    app.decorate('jobs', runner)
    app.addHook('onReady', async () => runner.start())
    app.addHook('onClose', async () => runner.stop())
  },
  { name: 'jobs', dependencies: ['db', 'clock', 'game-registry'] },
)
