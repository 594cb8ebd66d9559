import { readFileSync } from 'node:fs'
import fp from 'fastify-plugin'
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { toIso } from '../core/clock.js'
import { APP_PREFIX } from '../core/paths.js'
import { StringEnum } from '../schemas/common.js'
import { healthDocs } from './health-docs.js'
import { pendingMigrations, type Migrations } from '../../db/migrate.js'

/** One readiness condition: `ok`, and a word for its state that the 503 body shows. */
export interface ReadinessState {
  ok: boolean
  state: string
}
/** What a feature adds to /health/ready: readiness says whether this instance should take traffic. */
export type ReadinessCheck = () => ReadinessState | Promise<ReadinessState>

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * What `/health/ready` waits for beyond the database and the migrations: a feature adds its
     * own (the e-mail worker when SMTP is configured) while it registers.
     */
    readiness: { add(name: string, check: ReadinessCheck): void }
  }
}

/** The package's version, as health and the start-up line report it. */
export const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
  version: string
}

const HealthSchema = Type.Object({
  status: StringEnum(['ok', 'error'] as const),
  timestamp: Type.String(),
  version: Type.String(),
  database: StringEnum(['ok', 'unreachable'] as const),
  uptimeSeconds: Type.Integer(),
})
const ActuatorSchema = Type.Object({ status: StringEnum(['UP', 'DOWN'] as const) })
const LiveSchema = Type.Object({ status: Type.Literal('ok'), uptimeSeconds: Type.Integer() })
const ReadySchema = Type.Object({
  status: StringEnum(['ready', 'unavailable'] as const),
  failing: Type.Array(Type.String(), { description: 'The checks that are not ready (empty when ready)' }),
  checks: Type.Record(Type.String(), Type.String(), {
    description:
      'Each check and its state: database ok | unreachable, migrations ok | pending | unknown, ' +
      'emailWorker running | stopped (only when SMTP_URL is set)',
  }),
})

/**
 * Health: no API key, never rate limited, a real database round trip. The SDKs' connect
 * check searches the actuator body for the literal text `"status":"UP"`, so it stays compact JSON.
 */
export default fp<{ migrations: Migrations }>(
  async (instance, opts) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>()
    const startedAt = Date.now()
    const common = { tags: ['Health'], security: [] }
    const config = { public: true, probe: true }
    instance.openapi.describe(healthDocs, { HealthStatus: HealthSchema })

    const detailed = {
      schema: {
        ...common,
        summary: 'Server and database health',
        description:
          'No API key, never rate limited. 200 with status ok when the database answers a trivial query within ' +
          '2 s; 503 with status error and database unreachable when it does not.',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
      config,
      handler: async (_request: unknown, reply: { code(status: number): unknown }) => {
        const up = await app.pingDb()
        reply.code(up ? 200 : 503)
        return {
          status: up ? ('ok' as const) : ('error' as const),
          timestamp: toIso(app.clock.now()),
          version,
          database: up ? ('ok' as const) : ('unreachable' as const),
          uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
        }
      },
    }
    app.get('/health', detailed)
    app.get(`${APP_PREFIX}/health`, detailed)

    app.get(
      '/actuator/health',
      {
        schema: {
          ...common,
          summary: 'Health in the horizOn actuator form',
          description:
            'Compact JSON {"status":"UP"} (200) or {"status":"DOWN"} (503): the SDKs search the body for the ' +
            'literal text "status":"UP". An API key sent with it is ignored.',
          response: { 200: ActuatorSchema, 503: ActuatorSchema },
        },
        config,
      },
      async (_request, reply) => {
        const up = await app.pingDb()
        return reply.code(up ? 200 : 503).send({ status: up ? 'UP' : 'DOWN' })
      },
    )
    app.get(
      '/api/v1/public/health',
      {
        schema: {
          ...common,
          summary: 'Plain-text health: OK or DOWN',
          description: 'text/plain: OK (200) when the database answers, DOWN (503) when it does not.',
          produces: ['text/plain'],
          response: { 200: Type.String(), 503: Type.String() },
        },
        config,
      },
      async (_request, reply) => {
        const up = await app.pingDb()
        return reply
          .code(up ? 200 : 503)
          .type('text/plain; charset=utf-8')
          .send(up ? 'OK' : 'DOWN')
      },
    )

    app.get(
      '/health/live',
      {
        schema: {
          ...common,
          summary: 'Liveness: the process serves requests',
          description:
            'For orchestrators (a liveness probe, a Docker HEALTHCHECK): 200 whenever the process answers at all. ' +
            'It reads nothing, so a database outage never gets a healthy process restarted.',
          response: { 200: LiveSchema },
        },
        config,
      },
      async () => ({ status: 'ok' as const, uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000) }),
    )

    const checks = new Map<string, ReadinessCheck>()
    app.decorate('readiness', { add: (name: string, check: ReadinessCheck) => void checks.set(name, check) })
    // Migrations never come undone while the process runs: once applied, no need to read them again.
    let migrated = false
    const migrationsState = async (): Promise<ReadinessState> => {
      if (migrated) return { ok: true, state: 'ok' }
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), Math.min(2000, app.config.DB_QUERY_TIMEOUT_MS))
      })
      try {
        const pending = await Promise.race([pendingMigrations(app.db, opts.migrations).catch(() => null), timeout])
        if (pending === null) return { ok: false, state: 'unknown' }
        migrated = pending.length === 0
        return { ok: migrated, state: migrated ? 'ok' : 'pending' }
      } finally {
        clearTimeout(timer)
      }
    }

    app.get(
      '/health/ready',
      {
        schema: {
          ...common,
          summary: 'Readiness: the database answers, migrations are applied, the e-mail worker runs',
          description:
            'For orchestrators and load balancers (a readiness probe): 200 when the database answers a trivial query ' +
            'within 2 s (or DB_QUERY_TIMEOUT_MS if shorter), every migration is applied and, when SMTP_URL is set, ' +
            'the e-mail worker runs. Otherwise 503 with `failing` naming what is not ready and `checks` the state ' +
            'of each.',
          response: { 200: ReadySchema, 503: ReadySchema },
        },
        config,
      },
      async (_request, reply) => {
        const up = await app.pingDb()
        const states: Record<string, ReadinessState> = {
          database: up ? { ok: true, state: 'ok' } : { ok: false, state: 'unreachable' },
          // Without a database the migrations cannot be read: the database is what is named.
          migrations: up ? await migrationsState() : { ok: true, state: 'unknown' },
        }
        for (const [name, check] of checks) states[name] = await check()
        const failing = Object.keys(states).filter((name) => !states[name].ok)
        reply.code(failing.length === 0 ? 200 : 503)
        return {
          status: failing.length === 0 ? ('ready' as const) : ('unavailable' as const),
          failing,
          checks: Object.fromEntries(Object.entries(states).map(([name, { state }]) => [name, state])),
        }
      },
    )
  },
  { name: 'health', dependencies: ['db', 'clock', 'config', 'openapi'] },
)
