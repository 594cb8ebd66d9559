import type { Generated } from 'kysely'

/** A receiver an operator registered: its URL, the events it wants, its format, signing secret and health. */
export interface WebhookEndpointsTable {
  id: string
  url: string
  /** JSON array of event types. */
  events: string
  format: 'standard' | 'discord' | 'slack'
  enabled: 0 | 1
  description: string | null
  /** `whsec_` + base64 of 24 random bytes: the signing key, needed whole to sign. */
  secret: string
  /** Set when the server disabled the endpoint itself (its receiver answered 410). */
  disabled_reason: string | null
  created_at: number
  updated_at: number
  /** Kept by the worker with each attempt it records (the list shows them as the endpoint's health). */
  last_attempt_at: number | null
  last_outcome: 'delivered' | 'retry' | 'failed' | null
  last_response_code: number | null
  last_delivered_at: number | null
  /** Attempts that failed since the last delivered one. */
  consecutive_failures: Generated<number>
}

/** The outbox: one event for one endpoint, claimed by a worker under a lease and retried with backoff. */
export interface WebhookDeliveriesTable {
  id: string
  endpoint_id: string
  event_type: string
  /** The event as JSON `{ type, timestamp, data }`, formatted for the endpoint when sent. */
  payload: string
  status: 'pending' | 'processing' | 'delivered' | 'failed'
  attempts: number
  next_attempt_at: number
  claim_token: string | null
  /** While processing: when the claim runs out and another worker may take the delivery back. */
  lease_until: number | null
  response_code: number | null
  duration_ms: number | null
  error: string | null
  created_at: number
  updated_at: number
}

/** One attempt at a delivery and how it went: the delivery's history, as the console shows it. */
export interface WebhookAttemptsTable {
  id: Generated<number>
  delivery_id: string
  attempt: number
  at: number
  outcome: 'delivered' | 'retry' | 'failed'
  response_code: number | null
  duration_ms: number
  error: string | null
  next_attempt_at: number | null
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    webhook_endpoints: WebhookEndpointsTable
    webhook_deliveries: WebhookDeliveriesTable
    webhook_attempts: WebhookAttemptsTable
  }
}
