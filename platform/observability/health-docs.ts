import type { OperationDocs } from '../openapi/index.js'
import { EX } from '../openapi/examples.js'

const detailed = {
  description:
    'A real database round trip. 200 with `status: "ok"` when the database answers, 503 with `status: "error"` and ' +
    '`database: "unreachable"` when it does not. No API key, never rate limited: meant for load balancers and monitors.',
  response: { status: 'ok', timestamp: EX.now, version: '0.1.0', database: 'ok', uptimeSeconds: 86400 },
}

/** The health routes' OpenAPI prose, kept out of health.ts so the routes read short. */
export const healthDocs: OperationDocs = {
  'GET /health': detailed,
  'GET /api/v1/app/health': {
    ...detailed,
    description: `${detailed.description} The self-hosted horizOn path of the same check (compat).`,
  },
  'GET /actuator/health': {
    description:
      'The horizOn SDKs\' connect check (compat): 200 `{"status":"UP"}` or 503 `{"status":"DOWN"}`, always compact ' +
      'JSON, because the SDKs search the raw body for the literal text `"status":"UP"`. An `X-API-Key` sent with it ' +
      '(the Unreal SDK does) is ignored; never rate limited.',
    response: { status: 'UP' },
  },
  'GET /api/v1/public/health': {
    description:
      'Plain text (compat): 200 `OK` when the database answers, 503 `DOWN` when it does not. No API key, never rate limited.',
    response: 'OK',
  },
  'GET /health/live': {
    description:
      'For orchestrators (a liveness probe, a Docker HEALTHCHECK): 200 whenever the process answers at all. It reads ' +
      'nothing, so a database outage never gets a healthy process restarted. No API key, never rate limited.',
    response: { status: 'ok', uptimeSeconds: 86400 },
  },
  'GET /health/ready': {
    description:
      'For orchestrators and load balancers (a readiness probe): 200 when the database answers a trivial query within ' +
      '2 s (or `DB_QUERY_TIMEOUT_MS` if shorter), every migration is applied and, when `SMTP_URL` is set, the e-mail ' +
      'worker runs. Otherwise 503 with `failing` naming what is not ready and `checks` the state of each. No API key, ' +
      'never rate limited.',
    response: { status: 'ready', failing: [], checks: { database: 'ok', migrations: 'ok' } },
  },
}
