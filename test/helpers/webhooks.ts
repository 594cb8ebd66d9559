import type { Test } from 'tap'
import { Webhook } from 'standardwebhooks'
import { buildApp } from '../../app.js'
import {
  ADMIN,
  ADMIN_KEY,
  API_KEY,
  APP,
  freshDatabase,
  TestClock,
  testConfig,
  testProcessMetrics,
  type Dialect,
  type TestApp,
} from './app.js'
import type { Receiver } from './receiver.js'

export const MANUAL = { WEBHOOK_POLL_INTERVAL_MS: '3600000', EMAIL_POLL_INTERVAL_MS: '3600000' }
export const SECRET_FORM = /^whsec_[A-Za-z0-9+/]{32}$/

export interface HookApp extends TestApp {
  logs: string[]
}

/** The app as buildTestApp makes it, its log lines kept (to prove no secret is ever written). */
export async function hookApp(
  t: Test,
  dialect: Dialect,
  env: Record<string, string> = {},
  dbEnv?: Record<string, string>,
) {
  const db = dbEnv ?? (await freshDatabase(t, dialect))
  const clock = new TestClock()
  const logs: string[] = []
  const all = { ...db, WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'debug', ...MANUAL, ...env }
  const app = await buildApp({
    config: testConfig(all),
    clock,
    processMetrics: testProcessMetrics(),
    logStream: { write: (line: string) => void logs.push(line) },
  })
  t.teardown(() => app.close())
  await app.ready()
  const ctx: HookApp = {
    app,
    clock,
    env: all,
    logs,
    call: (o) => app.inject({ ...o, url: `${APP}${o.url}`, headers: { 'x-api-key': API_KEY, ...o.headers } }),
    admin: (o) => app.inject({ ...o, url: `${ADMIN}${o.url}`, headers: { 'x-admin-key': ADMIN_KEY, ...o.headers } }),
  }
  return ctx
}

/** Runs the worker until nothing is due (each poll sends at most two per endpoint). */
export async function drain(ctx: TestApp) {
  for (let pass = 0; pass < 50; pass++) {
    await ctx.app.webhookWorker.runOnce()
    const due = await ctx.app.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', 'in', ['pending', 'processing'])
      .where('next_attempt_at', '<=', ctx.clock.now())
      .execute()
    if (due.length === 0 && ctx.app.webhookWorker.active === 0) return
  }
  throw new Error('the outbox did not drain in 50 passes')
}

export async function createHook(ctx: TestApp, body: Record<string, unknown>) {
  const res = await ctx.admin({ method: 'POST', url: '/webhooks', payload: body })
  if (res.statusCode !== 201) throw new Error(`webhook create failed: ${res.statusCode} ${res.body}`)
  return res.json() as { id: string; secret: string }
}

/** The events a receiver got, each verified with the independent Standard Webhooks library. */
export function verified(t: Test, receiver: Receiver, secret: string) {
  const verifier = new Webhook(secret)
  return receiver.received.map((r) => {
    const headers = {
      'webhook-id': String(r.headers['webhook-id']),
      'webhook-timestamp': String(r.headers['webhook-timestamp']),
      'webhook-signature': String(r.headers['webhook-signature']),
    }
    // The library checks the timestamp against the real clock: the test clock is in the past.
    const now = Math.floor(Date.now() / 1000)
    const resigned = { ...headers, 'webhook-timestamp': String(now) }
    resigned['webhook-signature'] = new Webhook(secret).sign(headers['webhook-id'], new Date(now * 1000), r.body)
    t.doesNotThrow(() => verifier.verify(r.body, resigned), 'the library verifies its own signature of the body')
    t.equal(
      headers['webhook-signature'],
      verifier.sign(headers['webhook-id'], new Date(Number(headers['webhook-timestamp']) * 1000), r.body),
      'the signature sent is the one the library computes for id, timestamp and body',
    )
    return JSON.parse(r.body) as { type: string; timestamp: string; data: Record<string, any> }
  })
}
