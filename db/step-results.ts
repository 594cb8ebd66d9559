import type { QueryResult } from 'kysely'

/**
 * A statement's answer as the step journal keeps it (migration-steps.ts): JSON, with the values JSON
 * has no form for tagged, so that a resumed migration reads back what it read the first time (a
 * BIGINT column or `numAffectedRows` as a bigint, a BLOB as bytes, a DATETIME as a Date).
 */
function encode(value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() }
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') }
  if (value instanceof Date) return { $date: value.toISOString() }
  if (Array.isArray(value)) return value.map(encode)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, encode(inner)]))
  }
  return value
}

function decode(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decode)
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value)
  if (entries.length === 1) {
    const [tag, inner] = entries[0]!
    if (tag === '$bigint') return BigInt(inner as string)
    if (tag === '$bytes') return Buffer.from(inner as string, 'base64')
    if (tag === '$date') return new Date(inner as string)
  }
  return Object.fromEntries(entries.map(([key, inner]) => [key, decode(inner)]))
}

/** A statement's answer as journal text, so a migration resumed after a crash replays it without running it again. */
export const encodeResult = (result: QueryResult<unknown>): string => JSON.stringify(encode(result))

/** The journal's text back to the answer it recorded (encodeResult's inverse). */
export const decodeResult = (text: string): QueryResult<any> => decode(JSON.parse(text)) as QueryResult<any>
