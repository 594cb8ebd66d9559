import Fastify from 'fastify'

/**
 * The ceiling: the least a JSON API can do on this machine — one route that checks an X-API-Key
 * header and answers a constant small object. Outpost's numbers are read as ratios to it.
 */
const port = Number(process.argv[2] ?? 0)
const key = process.argv[3] ?? 'bench-api-key-0123456789'
const StatusSchema = { type: 'object', properties: { status: { type: 'string' } } } as const
const app = Fastify({ logger: false })
app.get('/ceiling', { schema: { response: { 200: StatusSchema, 401: StatusSchema } } }, async (request, reply) => {
  if (request.headers['x-api-key'] !== key) return reply.code(401).send({ status: 'unauthorized' })
  return { status: 'ok' }
})
await app.listen({ host: '127.0.0.1', port })
process.stdout.write('ready\n')
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
