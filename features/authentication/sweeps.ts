import type { Db } from '../../db/types.js'
import { affected } from '../../db/dialect.js'
import { deleteInBatches, type Job } from '../../db/jobs.js'
import { sweepLockoutRows } from '../../platform/security/login-lockout.js'

/**
 * Rows the sign-ins leave behind that no request reads any more: failures older than the lockout
 * window, locks that have ended, Google codes past their 10 minutes. The requests' own queries
 * ignore them (they count, match and read only rows still in force); this job deletes them, out of
 * the request path, at most once per period over all instances. It used to be a DELETE inside a
 * sign-in, whose range locks deadlocked with the sign-ins beside it (a 500 on MySQL).
 */
export async function sweepSignInRows(db: Db, now: number) {
  const { failures, locks } = await sweepLockoutRows(db, now)
  const googleCodes = await deleteInBatches(
    async (limit) => {
      const rows = await db
        .selectFrom('google_codes')
        .select('code_hash')
        .where('expires_at', '<=', now)
        .limit(limit)
        .execute()
      return rows.map((r) => r.code_hash)
    },
    async (hashes) =>
      affected(
        await db
          .deleteFrom('google_codes')
          .where('code_hash', 'in', hashes)
          .where('expires_at', '<=', now)
          .executeTakeFirst(),
      ),
  )
  return { failures, locks, googleCodes }
}

/** Deletes expired sign-in rows in the background, so no sign-in request pays for the cleanup. */
export const SIGN_IN_SWEEP: Job = {
  name: 'authentication.sign-in-sweep',
  everyMs: 5 * 60_000,
  run: sweepSignInRows,
}
