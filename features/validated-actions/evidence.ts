import type { Db } from '../../db/types.js'
import { affected } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, notFound } from '../../platform/core/errors.js'
import { isUuidText } from '../../platform/schemas/common.js'
import { isBase64, sha256Hex } from './service.js'

/**
 * Evidence: the input log of a run the server asked for (a top-N or sus run), uploaded
 * once within 24 h. Its SHA-256 must be the `inputLogHash` of the submit; a wrong log leaves the
 * request open. The log is kept for the operator.
 */

/** Accepts a run's input log once, only when its hash is the submit's, so the operator reviews what was really played. */
export async function uploadEvidence(db: Db, runId: string, userId: string, log: string, now: number) {
  // Text that is not a UUID names no run; not even asked of the database, where MySQL's collation
  // would match a UUID followed by spaces.
  const run = !isUuidText(runId)
    ? undefined
    : await db
        .selectFrom('validated_runs')
        .select(['user_id', 'input_log_hash', 'evidence_status', 'evidence_upload_before', 'evidence_max_bytes'])
        .where('id', '=', runId)
        .executeTakeFirst()
  const fail = (status: number, code: string, message: string) => new AppError(status, code, message, { runId })
  if (!run || run.user_id !== userId || run.evidence_status === null) {
    throw fail(404, 'EVIDENCE_NOT_REQUESTED', 'No evidence was requested for this run')
  }
  if (run.evidence_status === 'UPLOADED')
    throw fail(409, 'EVIDENCE_ALREADY_UPLOADED', 'The log of this run was already uploaded')
  if (now >= run.evidence_upload_before!)
    throw fail(410, 'EVIDENCE_EXPIRED', 'The upload window of this run has closed')
  if (!isBase64(log)) throw fail(400, 'EVIDENCE_INVALID_ENCODING', 'log must be standard base64')
  const data = Buffer.from(log, 'base64')
  if (data.length > run.evidence_max_bytes!) {
    throw fail(413, 'EVIDENCE_TOO_LARGE', `The log must be at most ${run.evidence_max_bytes} bytes`)
  }
  if (sha256Hex(data) !== run.input_log_hash) {
    throw fail(422, 'EVIDENCE_HASH_MISMATCH', 'The log does not match the input log hash of the run')
  }
  await inTransaction(db, async (trx) => {
    // The status flip decides between concurrent uploads of one run; the loser stores nothing.
    const claimed = await trx
      .updateTable('validated_runs')
      .set({ evidence_status: 'UPLOADED' })
      .where('id', '=', runId)
      .where('evidence_status', '=', 'REQUESTED')
      .executeTakeFirst()
    if (affected(claimed) !== 1)
      throw fail(409, 'EVIDENCE_ALREADY_UPLOADED', 'The log of this run was already uploaded')
    await trx
      .insertInto('validated_evidence')
      .values({ run_id: runId, data, bytes: data.length, uploaded_at: now })
      .execute()
  })
  return { runId, status: 'UPLOADED' as const, bytes: data.length }
}

/** The stored log, for the operator. */
export async function evidenceLog(db: Db, runId: string): Promise<Buffer> {
  const row = await db.selectFrom('validated_evidence').select('data').where('run_id', '=', runId).executeTakeFirst()
  if (!row) throw notFound('NOT_FOUND', 'No log was uploaded for this run', { runId })
  return Buffer.from(row.data)
}
