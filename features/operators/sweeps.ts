import type { ExpressionBuilder } from 'kysely'
import type { Database, Db } from '../../db/types.js'
import { affected } from '../../db/dialect.js'
import { deleteInBatches, type Job } from '../../db/jobs.js'
import { SESSION_IDLE_MS } from './service.js'

/**
 * Console sessions past their end (24 h) or idle too long (2 h): the session lookup refuses them
 * already, so they only take room. Deleted here, out of the sign-in's transaction, at most once per
 * period over all instances.
 */
export async function sweepOperatorSessions(db: Db, now: number) {
  const ended = (eb: ExpressionBuilder<Database, 'operator_sessions'>) =>
    eb.or([eb('expires_at', '<=', now), eb('last_seen_at', '<=', now - SESSION_IDLE_MS)])
  return deleteInBatches(
    async (limit) => {
      const rows = await db.selectFrom('operator_sessions').select('id').where(ended).limit(limit).execute()
      return rows.map((r) => r.id)
    },
    async (ids) =>
      affected(await db.deleteFrom('operator_sessions').where('id', 'in', ids).where(ended).executeTakeFirst()),
  )
}

/** Deletes ended console sessions in the background, so no request pays for the cleanup. */
export const OPERATOR_SESSION_SWEEP: Job = {
  name: 'operators.session-sweep',
  everyMs: 15 * 60_000,
  run: sweepOperatorSessions,
  // Operators and their sessions are the server's: kept in default's database only.
  serverWide: true,
}
