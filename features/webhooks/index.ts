import { adminRoutes, defineFeature } from '../../platform/core/features.js'
import { ADMIN_PREFIX } from '../../platform/core/paths.js'
import { webhookEvents } from './events.js'
import { AddressPolicy } from './address.js'
import { HttpSender } from './sender.js'
import { countBacklog, recordEvent } from './service.js'
import { WebhookWorker, type DeliveryOutcome, type WebhookWorkerSettings } from './worker.js'
import { SendSlots } from './slots.js'
import { gameIdOf } from '../../db/games.js'
import { nowAndAfterCommit } from '../../db/transaction.js'
import { backgroundPerGame, countOverGames, type BackgroundPerGame } from '../../platform/games/background.js'
import admin from './admin.js'
import { components } from './docs.js'
import { manifest } from './manifest.js'

export { manifest } from './manifest.js'

/** Sends in flight at once in this process, over every game. */
const SENDS_AT_ONCE = 32
/** The longest wait between two polls of an idle game's outbox. */
const IDLE_MAX_MS = 30_000
/** The admin routes whose POSTs queue a delivery (a test send, a retry). */
const WEBHOOK_ROUTES = `${ADMIN_PREFIX}/webhooks/`

declare module 'fastify' {
  interface FastifyInstance {
    /** The default game's webhook worker (tests drive it by hand). */
    webhookWorker: WebhookWorker
    /** Every game's webhook worker: `webhookWorkers.of(game)`. */
    webhookWorkers: BackgroundPerGame<WebhookWorker>
  }
}

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    const { config } = app
    const policy = new AddressPolicy(config.WEBHOOK_ALLOW_PRIVATE)
    const events = webhookEvents(app.features)
    const eventTypes = events.map((event) => event.type)
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX, policy, eventTypes })

    const byOutcome = app.metrics.counter('outpost_webhook_deliveries_total')
    const byEvent = app.metrics.counter('outpost_webhook_deliveries_by_event_total', eventTypes)
    const byEndpoint = app.metrics.counter('outpost_webhook_deliveries_by_endpoint_total')
    const log = app.log.child({ component: 'webhook-worker' })
    const sender = new HttpSender(policy)
    // Every game's sends share these: one game takes at most its `concurrency` of them (slots.ts).
    const slots = new SendSlots(SENDS_AT_ONCE)
    const settings: WebhookWorkerSettings = {
      maxAttempts: config.WEBHOOK_MAX_ATTEMPTS,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      idleMaxMs: IDLE_MAX_MS,
      concurrency: 8,
      perEndpoint: 2,
      timeoutMs: 5000,
      // A send is cut at 5 s; the lease leaves room for recording its outcome on a slow database.
      leaseMs: 60_000,
      // 1 min, 3, 9, 27, 81 min, 4 h, 12 h: eight attempts spread over about 18 hours.
      backoffBaseMs: 60_000,
      backoffMaxMs: 12 * 3600_000,
      publicUrl: config.PUBLIC_URL,
      titles: new Map(events.map((event) => [event.type, event.title])),
    }
    // Counted under the game whose outbox the worker delivers.
    const onDelivery = (game: string) => (event: string, endpointId: string, outcome: DeliveryOutcome) => {
      byOutcome(outcome, game)
      byEvent(event, game)
      byEndpoint(`${endpointId}:${outcome}`, game)
    }
    const workers = backgroundPerGame(
      app,
      (game) =>
        new WebhookWorker(
          game.db,
          app.clock,
          log.child({ game: game.id }),
          sender,
          settings,
          onDelivery(game.id),
          slots,
          game.id,
        ),
      { eager: true },
    )
    app.decorate('webhookWorkers', workers)
    app.decorate('webhookWorker', { getter: () => workers.of(app.games.default) })
    app.events.onRaised(async (trx, event) => {
      if ((await recordEvent(trx, event, app.clock.now())) === 0) return
      // Once the deliveries are committed, the game's worker polls at once if it was idle.
      const game = app.games.get(gameIdOf(trx))
      if (game) nowAndAfterCommit(trx, () => workers.live(game)?.wake())
    })
    // A test send or a retry asked through the admin API: the same.
    app.addHook('onResponse', (request, reply, done) => {
      const url = request.routeOptions.url ?? ''
      if (request.game && request.method === 'POST' && reply.statusCode < 400 && url.startsWith(WEBHOOK_ROUTES)) {
        workers.live(request.game)?.wake()
      }
      done()
    })
    // Summed over the games: the server's backlog, as one series per status.
    app.metrics.readGaugeFrom('outpost_webhook_outbox', () => countOverGames(app.games.list(), countBacklog))
  },
  ['db', 'clock', 'config', 'metrics', 'events', 'openapi', 'game-registry'],
)
