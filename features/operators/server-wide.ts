import type { FastifyRequest } from 'fastify'
import { notFound } from '../../platform/core/errors.js'
import { namedGame } from '../../platform/games/paths.js'

/**
 * Operators and their console sessions are the server's, kept in its own (`default`'s) database
 * (contract §14): their routes are not served under a game's admin prefix, where an admin write runs
 * in that game's database. The audit log is the exception: each game's is listed under its prefix.
 */
export async function serverWideOnly(request: FastifyRequest): Promise<void> {
  const game = namedGame(request.raw)
  if (game === undefined) return
  throw notFound(
    'NOT_FOUND',
    `Operators and console sessions are server-wide: call ${request.url} without /games/${game}`,
  )
}
