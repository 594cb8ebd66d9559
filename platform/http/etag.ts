import { createHash } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** A strong ETag over the given parts; computed once per cached version, not per request. */
export function contentEtag(...parts: string[]): string {
  const hash = createHash('sha256')
  for (const part of parts) hash.update(part).update('\u0000')
  return `"${hash.digest('base64url').slice(0, 27)}"`
}

/** RFC 9110 If-None-Match: `*`, or a list of tags (weak comparison: `W/` is ignored). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((raw) => {
    const tag = raw.trim()
    return tag === '*' || tag.replace(/^W\//, '') === etag
  })
}

/**
 * Sets the ETag and, when the client's copy is current, answers 304 with no body. Returns true
 * when it answered; the handler then returns the reply.
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag)
  if (!ifNoneMatchHits(request.headers['if-none-match'], etag)) return false
  reply.code(304).send()
  return true
}
