import { readFileSync } from 'node:fs'
import fp from 'fastify-plugin'
import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { toIso } from './clock.js'
import { APP_PREFIX } from './paths.js'
import { StringEnum } from '../../schemas/common.js'
import { healthDocs } from './health-docs.js'

const { version } = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
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

/**
 * Health: no API key, never rate limited, a real database round trip. The SDKs' connect
 * check searches the actuator body for the literal text `"status":"UP"`, so it stays compact JSON.
 */
export default fp(
  async (instance) => {
    const app = instance.withTypeProvider<TypeBoxTypeProvider>()
    const startedAt = Date.now()
    const common = { tags: ['Health'], security: [] }
    const config = { public: true }
    instance.openapi.describe(healthDocs, { HealthStatus: HealthSchema })

    const detailed = {
      schema: { ...common, summary: 'Server and database health', response: { 200: HealthSchema, 503: HealthSchema } },
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
  },
  { name: 'health', dependencies: ['db', 'clock', 'openapi'] },
)
