import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { Insertable } from 'kysely'
import type { AuditLogTable, Db } from '../../db/types.js'
import { runInRequestTransaction } from '../../db/transaction.js'
import { toIso } from '../core/clock.js'
import { keysetPage } from '../http/pagination.js'
import { maskUrl } from './secrets.js'

/**
 * The audit log (table `audit_log`, owned here): every admin write, by the admin key or by an
 * operator, and every sign-in and failed sign-in. An admin write's entry is written in the same
 * transaction as the change (`audited`), so no change commits unrecorded and a failed write (any
 * 4xx/5xx: its transaction rolls back) leaves no entry.
 */

/** Longest `changes` kept, in characters of JSON; a longer summary is cut to a preview. */
export const MAX_CHANGES_CHARS = 4000
const PREVIEW_CHARS = 1000
/** What a secret's value is written as, so the log shows a field was set without what it was. */
export const REDACTED = '[redacted]'

/** Property names (lower-cased, letters and digits only) whose values are never written down. */
const SECRET_PARTS = [
  'password',
  'passwd',
  'secret',
  'token',
  'totp',
  'apikey',
  'adminkey',
  'privatekey',
  'credential',
  'cookie',
  'authorization',
]
/**
 * Whole names that are secrets in this API: a gift code is a bearer voucher, `key`/`code` may be one,
 * `currentCode` is a TOTP code.
 */
const SECRET_NAMES = new Set(['key', 'code', 'codes', 'otp', 'pin', 'currentcode'])

/** Whether a field's value must stay out of the audit log: by name, since a secret's value looks like any string. */
export function isSecretName(name: string): boolean {
  const flat = name.toLowerCase().replace(/[^a-z0-9]/g, '')
  return SECRET_NAMES.has(flat) || SECRET_PARTS.some((part) => flat.includes(part))
}

const isUrlName = (name: string) => name.toLowerCase().endsWith('url')

/**
 * A URL as the audit log keeps it: its origin and a masked path (`maskUrl`). A chat tool's webhook
 * URL carries its token in the path (Discord) or is the token (Slack), so that part is never written down.
 */
export function redactUrl(value: unknown): unknown {
  if (typeof value !== 'string') return redact(value)
  return maskUrl(value) ?? REDACTED
}

/**
 * A copy of `value` with the value of every secret-named property replaced, and every URL-named one
 * masked to its origin and plain path words, at any depth.
 */
export function redact(value: unknown, depth = 0): unknown {
  if (depth > 32) return REDACTED
  if (Array.isArray(value)) return value.map((item) => redact(item, depth + 1))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([name, item]) => [
        name,
        isSecretName(name) ? REDACTED : isUrlName(name) ? redactUrl(item) : redact(item, depth + 1),
      ]),
    )
  }
  return value
}

/** The body as the audit log keeps it: secrets removed, at most MAX_CHANGES_CHARS of JSON. */
export function summarizeChanges(body: unknown): string | null {
  if (body === undefined || body === null) return null
  // Binary bodies (a Buffer) are not summarized: their size says enough.
  if (Buffer.isBuffer(body)) return JSON.stringify({ bytes: body.length })
  const text = JSON.stringify(redact(body))
  if (text === undefined) return null
  if (text.length <= MAX_CHANGES_CHARS) return text
  return JSON.stringify({ truncated: true, chars: text.length, preview: text.slice(0, PREVIEW_CHARS) })
}

/**
 * A failed sign-in: the only entry whose actor no credential proved (it is the name as claimed, and
 * the request id is the caller's too). The list shows it with `actorVerified: false`.
 */
export const SIGN_IN_FAILED = 'sign-in-failed'

/** One operator action as written down: who, as what role, did what to which target. */
export interface AuditEntry {
  at: number
  actor: string
  role: string | null
  address: string
  requestId: string
  action: string
  status: number
  target?: Record<string, unknown> | null
  changes?: unknown
  /** The game the write was for (contract §14); absent: `default`. */
  game?: string
}

/** Writes an action in the caller's transaction, so a change and its record stand or fall together. */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  const target = entry.target && Object.keys(entry.target).length > 0 ? JSON.stringify(entry.target) : null
  const row: Insertable<AuditLogTable> = {
    at: entry.at,
    actor: entry.actor.slice(0, 64),
    role: entry.role,
    address: entry.address.slice(0, 64),
    request_id: entry.requestId.slice(0, 128),
    action: entry.action.slice(0, 255),
    status: entry.status,
    target,
    changes: summarizeChanges(entry.changes),
    game_id: entry.game ?? 'default',
  }
  await db.insertInto('audit_log').values(row).execute()
}

/** The audit log's filters, as the console's audit page sends them. */
export interface AuditQuery {
  actor?: string
  action?: string
  from?: number
  to?: number
  cursor?: string
  limit: number
}

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text))

/** Newest (last written) first, filtered; `from` inclusive, `to` exclusive. */
export async function listAudit(db: Db, query: AuditQuery) {
  let q = db.selectFrom('audit_log').selectAll()
  if (query.actor !== undefined) q = q.where('actor', '=', query.actor.toLowerCase())
  if (query.action !== undefined) q = q.where('action', '=', query.action)
  if (query.from !== undefined) q = q.where('at', '>=', query.from)
  if (query.to !== undefined) q = q.where('at', '<', query.to)
  const page = await keysetPage(q, { cursor: query.cursor, limit: query.limit, keys: ['id'] })
  return {
    items: page.items.map((row) => ({
      id: Number(row.id),
      at: toIso(Number(row.at)),
      actor: row.actor,
      // Derived, not stored: it holds for the entries written before the field existed too.
      actorVerified: row.action !== SIGN_IN_FAILED,
      role: row.role,
      address: row.address,
      requestId: row.request_id,
      action: row.action,
      status: Number(row.status),
      target: parseJson(row.target) as Record<string, unknown> | null,
      changes: parseJson(row.changes),
      game: row.game_id ?? 'default',
    })),
    nextCursor: page.nextCursor,
  }
}

/** Who an admin request acts as, once admin-auth has checked its credential. */
export interface AdminActor {
  /** The operator's name, or `admin-key`. */
  name: string
  /** Its role in the request's game (admin-auth.ts sets it from `roles`): `owner` is server-wide. */
  role: 'owner' | 'moderator' | 'viewer'
  /** A non-owner's role in each game it holds one in (contract §14). */
  roles?: Readonly<Record<string, 'moderator' | 'viewer'>>
  via: 'key' | 'session'
  operatorId: string | null
  sessionId: string | null
}

/**
 * What a write acted on: the ids in its path; for a create, which has none, the id (or an operator's
 * user name) of what it made, from its answer; for a write that makes many at once (generated gift
 * codes, whose codes are secrets; an import of remote-config keys), how many.
 */
function targetOf(params: unknown, result: unknown): Record<string, unknown> | null {
  if (params && typeof params === 'object' && Object.keys(params).length > 0) return params as Record<string, unknown>
  if (!result || typeof result !== 'object') return null
  const answer = result as Record<string, unknown>
  for (const name of ['id', 'username']) {
    if (typeof answer[name] === 'string' || typeof answer[name] === 'number') return { [name]: answer[name] }
  }
  const count = answer.count ?? answer.imported
  return typeof count === 'number' ? { count } : null
}

/**
 * Wraps an admin write handler: it runs in one transaction (which `request.db` is, inside it, so the
 * feature's services join it) together with its audit entry. A handler that throws rolls both back.
 * The handler must return its body: a reply it sent itself would leave before the commit.
 */
export function audited(handler: RouteHandlerMethod, action: string, deps: { now: () => number }): RouteHandlerMethod {
  return async function (this: unknown, request: FastifyRequest, reply: FastifyReply) {
    // In the database of the request's game (its entry with it); a write to a game's own settings or
    // keys runs in the server's (`default`'s) and names the game it was for.
    const params = request.params as { gameId?: unknown } | undefined
    const game = typeof params?.gameId === 'string' ? params.gameId : request.game.id
    return runInRequestTransaction(request.game.db, async (trx) => {
      const result = await (handler as (this: unknown, rq: FastifyRequest, rp: FastifyReply) => unknown).call(
        this,
        request,
        reply,
      )
      if (result === reply || reply.sent) {
        throw new Error(`${action}: an audited handler must return its body, not send the reply`)
      }
      const actor = request.adminActor
      await recordAudit(trx, {
        at: deps.now(),
        actor: actor?.name ?? 'unknown',
        role: actor?.role ?? null,
        address: request.ip,
        requestId: request.id,
        action,
        status: reply.statusCode,
        target: targetOf(request.params, result),
        changes: request.body,
        game,
      })
      return result
    })
  } as RouteHandlerMethod
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by admin-auth on every admin request that showed a valid credential. */
    adminActor?: AdminActor
  }
}
