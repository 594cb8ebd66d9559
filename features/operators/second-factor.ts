import * as OTPAuth from 'otpauth'
import type { Db } from '../../db/types.js'
import { affected } from '../../db/dialect.js'
import { withTransaction } from '../../db/transaction.js'
import { AppError } from '../../platform/core/errors.js'
import { TOTP_PERIOD_SECONDS } from './service.js'

/**
 * The operator's second factor (TOTP, RFC 6238). A factor is changed in two steps: `beginTotp`
 * keeps a new secret pending (the route checks the current password and current code first), and
 * `confirmTotp` turns it on with a code from it, ending the operator's other sessions.
 */

const totpFor = (username: string, secret: string) =>
  new OTPAuth.TOTP({
    issuer: 'Outpost',
    label: username,
    algorithm: 'SHA1',
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    secret: OTPAuth.Secret.fromBase32(secret),
  })

/**
 * The time step of `code` when it is valid for `secret` at `now` (one step of clock drift either way),
 * else null.
 */
export function totpStep(username: string, secret: string, code: string, now: number): number | null {
  const delta = totpFor(username, secret).validate({ token: code, timestamp: now, window: 1 })
  if (delta === null) return null
  return Math.floor(now / 1000 / TOTP_PERIOD_SECONDS) + delta
}

/**
 * Spends a code's time step: only a step later than the last one accepted passes (one conditional
 * UPDATE), so a code seen once, even by another instance, is refused for the rest of its window.
 */
export async function spendTotpStep(db: Db, operatorId: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('operators')
    .set({ totp_last_step: step })
    .where('id', '=', operatorId)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst()
  return affected(result) === 1
}

/**
 * True when the operator has no second factor, or `code` is a current code of it (spent: it
 * passes once). The check of a sign-in and of a change of the factor itself.
 */
export async function passesSecondFactor(
  db: Db,
  operator: { id: string; username: string; totp_secret: string | null },
  code: string | undefined,
  now: number,
): Promise<boolean> {
  if (!operator.totp_secret) return true
  const step = code ? totpStep(operator.username, operator.totp_secret, code, now) : null
  return step !== null && (await spendTotpStep(db, operator.id, step))
}

/** A new secret to enroll (not active until a code from it is confirmed), with its otpauth:// URI. */
export async function beginTotp(db: Db, operatorId: string, now: number): Promise<{ secret: string; uri: string }> {
  const secret = new OTPAuth.Secret({ size: 20 }).base32
  const row = await db.selectFrom('operators').select('username').where('id', '=', operatorId).executeTakeFirst()
  if (!row) throw new AppError(401, 'UNAUTHORIZED', 'This operator no longer exists: sign in again')
  await db
    .updateTable('operators')
    .set({ totp_pending_secret: secret, updated_at: now })
    .where('id', '=', operatorId)
    .execute()
  return { secret, uri: totpFor(row.username, secret).toString() }
}

/**
 * Activates the pending secret with a code from it, and ends every other session of the operator
 * (one that outlived a change of the factor could be the reason for it). Returns how many ended.
 */
export async function confirmTotp(
  db: Db,
  operator: { operatorId: string; sessionId: string },
  code: string,
  now: number,
): Promise<number> {
  const { operatorId, sessionId } = operator
  const row = await db
    .selectFrom('operators')
    .select(['username', 'totp_pending_secret'])
    .where('id', '=', operatorId)
    .executeTakeFirst()
  if (!row?.totp_pending_secret)
    throw new AppError(409, 'CONFLICT', 'No enrollment is pending: start one with POST /api/v1/admin/session/totp')
  const step = totpStep(row.username, row.totp_pending_secret, code, now)
  if (step === null)
    throw new AppError(400, 'INVALID_TOTP', 'The code does not match: check the device clock and try the next code')
  const pending = row.totp_pending_secret
  return withTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('operators')
      .set({ totp_secret: pending, totp_pending_secret: null, totp_last_step: step, updated_at: now })
      .where('id', '=', operatorId)
      .where('totp_pending_secret', '=', pending)
      .executeTakeFirst()
    if (affected(result) === 0) throw new AppError(409, 'CONFLICT', 'The enrollment changed meanwhile: start it again')
    const revoked = await trx
      .deleteFrom('operator_sessions')
      .where('operator_id', '=', operatorId)
      .where('id', '!=', sessionId)
      .executeTakeFirst()
    return affected(revoked)
  })
}
