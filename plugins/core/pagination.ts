import { AppError } from './errors.js'

/**
 * Admin lists page by keyset: the cursor is the sort key of the last row, opaque to the client.
 * Stable under inserts, and one index range scan per page however deep.
 */
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
  throw new AppError(400, 'VALIDATION_ERROR', 'querystring/cursor is not a cursor this server issued')
}

/** Splits one extra fetched row off into `nextCursor`. */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => KeyCursor) {
  const items = rows.slice(0, limit)
  const last = items[items.length - 1]
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(keyOf(last)) : null }
}
