import { createHmac, randomBytes } from 'node:crypto'

/**
 * Standard Webhooks signatures: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed with the
 * bytes the secret's base64 part (after `whsec_`) decodes to. A receiver checks them with any
 * Standard Webhooks library, given the secret as shown once.
 */
export const SECRET_PREFIX = 'whsec_'

/** A new secret: `whsec_` + base64 of 24 random bytes. */
export function newSecret(): string {
  return SECRET_PREFIX + randomBytes(24).toString('base64')
}

/** What reads show of a secret: its prefix and last 4 characters. */
export function maskSecret(secret: string): string {
  return `${SECRET_PREFIX}…${secret.slice(-4)}`
}

/** The delivery's signature over id, time and body, so a receiver can check the sender and refuse replays. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64')
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')
  return `v1,${mac}`
}

/** The three headers of a signed request. */
export function signatureHeaders(secret: string, id: string, timestampSeconds: number, body: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, id, timestampSeconds, body),
  }
}
