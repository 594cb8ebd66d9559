import type { SelectQueryBuilder } from 'kysely'
import { badRequest } from './errors.js'

/**
 * Admin lists page by keyset: the cursor is the sort key of the last row, opaque to the client.
 * Stable under inserts, and one index range scan per page however deep.
 */

/**
 * A read size out of its bounds is clamped, not refused (API.md §5.2, as the PHP server does):
 * clients written for it ask for more than the maximum.
 */
export function clamp(value: number, bounds: { readonly min: number; readonly max: number }): number {
  return Math.min(bounds.max, Math.max(bounds.min, value))
}

export interface KeyCursor {
  at: number
  id: string
}

export function encodeCursor(cursor: KeyCursor): string {
  return Buffer.from(JSON.stringify([cursor.at, cursor.id])).toString('base64url')
}

export function decodeCursor(value: string | undefined): KeyCursor | undefined {
  if (value === undefined || value === '') return undefined
  try {
    const [at, id] = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown[]
    if (typeof at === 'number' && typeof id === 'string') return { at, id }
  } catch {
    // fall through to the error below
  }
  throw badRequest('querystring/cursor is not a cursor this server issued', '/cursor')
}

/** Splits one extra fetched row off into `nextCursor`. */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => KeyCursor) {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null }
}

export interface KeysetOptions {
  cursor?: string
  limit: number
  /**
   * The sort column (a timestamp or a count) and the unique column that breaks its ties, qualified
   * (`r.issued_at`) where the query joins tables.
   */
  at: string
  id: string
  /** Newest (or largest) first by default. */
  direction?: 'asc' | 'desc'
}

/**
 * Runs an admin list query as one keyset page: ordered by (at, id), starting after the cursor, one
 * row more than `limit` fetched to know whether another page follows.
 */
export async function keysetPage<O>(
  query: SelectQueryBuilder<any, any, O>,
  { cursor, limit, at, id, direction = 'desc' }: KeysetOptions,
): Promise<{ items: O[]; nextCursor: string | null }> {
  const after = decodeCursor(cursor)
  const beyond = direction === 'desc' ? '<' : '>'
  let q = query
  if (after) {
    q = q.where((eb) => eb.or([eb(at, beyond, after.at), eb.and([eb(at, '=', after.at), eb(id, beyond, after.id)])]))
  }
  const rows = await q.orderBy(at, direction).orderBy(id, direction).limit(limit + 1).execute()
  // A row's keys are the bare column names, without the table a qualified reference names.
  const atKey = at.slice(at.lastIndexOf('.') + 1)
  const idKey = id.slice(id.lastIndexOf('.') + 1)
  return page(rows, limit, (row) => {
    const r = row as Record<string, unknown>
    return { at: Number(r[atKey]), id: String(r[idKey]) }
  })
}
