import type { SelectQueryBuilder } from 'kysely'
import { parseIsoTime } from '../core/clock.js'
import { badRequest } from '../core/errors.js'

/**
 * Admin lists page by keyset: the cursor is the sort key of the last row, opaque to the client.
 * Stable under inserts, and one index range scan per page however deep.
 */

/**
 * A read size out of its bounds is clamped, not refused (as the PHP server does):
 * clients written for it ask for more than the maximum.
 */
export function clamp(value: number, bounds: { readonly min: number; readonly max: number }): number {
  return Math.min(bounds.max, Math.max(bounds.min, value))
}

/** The sort key of a page's last row: one value per sort column, the unique column last. */
export type KeyCursor = Array<number | string>

/** Opaque to the client, so the sort key can change without breaking a client that keeps cursors. */
export function encodeCursor(cursor: KeyCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url')
}

/** A cursor of `length` values, each a number or a string; anything else is a 400. */
export function decodeCursor(value: string | undefined, length = 2): KeyCursor | undefined {
  if (value === undefined || value === '') return undefined
  try {
    const values = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown
    if (
      Array.isArray(values) &&
      values.length === length &&
      values.every((v) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))
    ) {
      return values as KeyCursor
    }
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

/** How a list pages: its cursor, its size and the sort keys that make a page's end unambiguous. */
export interface KeysetOptions {
  cursor?: string
  limit: number
  /**
   * The sort columns, most significant first, the last one unique (it breaks every tie); qualified
   * (`r.issued_at`) where the query joins tables. Most lists sort by a timestamp and the id.
   */
  keys: readonly string[]
  /** Newest (or largest) first by default. */
  direction?: 'asc' | 'desc'
}

/**
 * Runs an admin list query as one keyset page: ordered by `keys`, starting after the cursor (the
 * last row's keys: rows that tie on the first i keys and come after it on key i+1), one row more
 * than `limit` fetched to know whether another page follows.
 */
export async function keysetPage<O>(
  query: SelectQueryBuilder<any, any, O>,
  { cursor, limit, keys, direction = 'desc' }: KeysetOptions,
): Promise<{ items: O[]; nextCursor: string | null }> {
  const after = decodeCursor(cursor, keys.length)
  const beyond = direction === 'desc' ? '<' : '>'
  let q = query
  if (after) {
    q = q.where((eb) =>
      eb.or(
        keys.map((key, i) =>
          eb.and([...keys.slice(0, i).map((tied, j) => eb(tied, '=', after[j])), eb(key, beyond, after[i])]),
        ),
      ),
    )
  }
  for (const key of keys) q = q.orderBy(key, direction)
  const rows = await q.limit(limit + 1).execute()
  // A row's keys are the bare column names, without the table a qualified reference names.
  const names = keys.map((key) => key.slice(key.lastIndexOf('.') + 1))
  return page(rows, limit, (row) => {
    const r = row as Record<string, unknown>
    return names.map((name) => (typeof r[name] === 'string' ? (r[name] as string) : Number(r[name])))
  })
}

/** What every admin list of what players send (their logs, their feedback) may be filtered by. */
export interface RecordListQuery {
  userId?: string
  from?: string
  to?: string
  cursor?: string
  limit: number
}

/**
 * One page of an admin list of what players send, newest first: by user, by each column of `equal`
 * given a value, and by `created_at` in [from, to). The lists differ only in their table and columns.
 */
export async function recordsPage<O>(
  query: SelectQueryBuilder<any, any, O>,
  filters: RecordListQuery,
  equal: Record<string, string | undefined> = {},
): Promise<{ items: O[]; nextCursor: string | null }> {
  const from = parseIsoTime(filters.from, 'querystring/from')
  const to = parseIsoTime(filters.to, 'querystring/to')
  let select = query
  for (const [column, value] of Object.entries({ user_id: filters.userId, ...equal })) {
    if (value !== undefined) select = select.where(column, '=', value)
  }
  if (from !== undefined) select = select.where('created_at', '>=', from)
  if (to !== undefined) select = select.where('created_at', '<', to)
  return keysetPage(select, { cursor: filters.cursor, limit: filters.limit, keys: ['created_at', 'id'] })
}
