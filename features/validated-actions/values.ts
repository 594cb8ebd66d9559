import { randomUUID } from 'node:crypto'
import type { Database, Db } from '../../db/types.js'
import type { ValidatedValue } from './tables.js'
import { affected, forUpdate, insertOrLock, insertOrTouch, upsert } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { findUser } from '../users/service.js'
import { MAX_SCORE } from '../leaderboard/schemas.js'
import type { Adjustment, PlayerState, ValueBody, ValueDefinition, ValueState } from './schemas.js'

/**
 * Player values: operator-defined keys, a balance per player (0 … 2^53−1) and the
 * amount credited on the current UTC day. Balances change only inside a transaction that holds the
 * player's lock row (an accepted run, an operator adjustment); a spend is a conditional UPDATE
 * (`balance >= amount`) whose affected-row count decides.
 */

/** The day a daily credit counts toward, in UTC so every instance and time zone agree. */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/**
 * Creates or writes the player's lock row. Every run start, submit and adjustment of one player
 * takes it first, so their counted limits and balance changes run one after the other, also across
 * instances (a row lock on MySQL and PostgreSQL; SQLite takes one writer at a time anyway). The row
 * is written (`locked_at` moves on), not only locked: on a Galera cluster two takes on two nodes then
 * conflict and one is run again, where two locks would each hold on its own node.
 */
export async function lockPlayer(db: Db, userId: string, now: number): Promise<void> {
  await insertOrTouch(
    db,
    'validated_players',
    db.insertInto('validated_players').values({ user_id: userId, locked_at: now }),
    ['user_id'],
    'locked_at',
  ).execute()
}

function toDefinition(row: ValidatedValue): ValueDefinition {
  return {
    key: row.value_key,
    minPerRun: row.min_per_run,
    maxPerRun: row.max_per_run,
    dailyCap: row.daily_cap,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  }
}

/** Creates or changes a value's definition by key, refusing bounds that no run could meet. */
export async function putValue(db: Db, key: string, body: ValueBody, now: number): Promise<ValueDefinition> {
  const minPerRun = body.minPerRun ?? null
  const maxPerRun = body.maxPerRun ?? null
  if (minPerRun !== null && maxPerRun !== null && minPerRun > maxPerRun) {
    throw badRequest(`body/minPerRun (${minPerRun}) must not be above maxPerRun (${maxPerRun})`, '/minPerRun')
  }
  const fields = { min_per_run: minPerRun, max_per_run: maxPerRun, daily_cap: body.dailyCap ?? null, updated_at: now }
  // A PUT replaces the definition and keeps created_at; the primary key settles concurrent PUTs.
  await upsert(db, 'validated_values', [{ value_key: key, created_at: now, ...fields }], {
    key: ['value_key'],
    update: Object.keys(fields),
  })
  const row = await db.selectFrom('validated_values').selectAll().where('value_key', '=', key).executeTakeFirstOrThrow()
  return toDefinition(row)
}

/** The console's list of values, oldest first. */
export async function listValues(db: Db, options: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('validated_values').selectAll(), {
    ...options,
    keys: ['created_at', 'value_key'],
    direction: 'asc',
  })
  return { items: items.map(toDefinition), nextCursor }
}

/** What a run asked for and what it got after the per-run and daily caps, reported back to the player. */
export interface Credit {
  requested: number
  credited: number
}

/** Every defined value with the player's balance (zero when none), sorted by key. */
export async function playerState(
  db: Db,
  userId: string,
  now: number,
  touched = new Map<string, Credit>(),
): Promise<PlayerState> {
  const day = utcDay(now)
  const [definitions, balances] = await Promise.all([
    db.selectFrom('validated_values').select(['value_key', 'daily_cap']).orderBy('value_key').execute(),
    db.selectFrom('validated_balances').selectAll().where('user_id', '=', userId).execute(),
  ])
  const byKey = new Map(balances.map((b) => [b.value_key, b]))
  const values = definitions.map((d): ValueState => {
    const b = byKey.get(d.value_key)
    return {
      key: d.value_key,
      balance: b?.balance ?? 0,
      earnedToday: b && b.earned_day === day ? b.earned_today : 0,
      dailyCap: d.daily_cap,
      ...touched.get(d.value_key),
    }
  })
  return { userId, day, values }
}

/** One value a run claims to have earned. */
export interface EarnedEntry {
  key: string
  amount: number
}

/** The first refusal of a run's claims, or null: the submit answers with it before touching balances. */
export type ValueCheck = { code: string; message: string } | null

/** Step 7's request checks, before any balance is touched. */
export async function checkEarned(db: Db, earned: EarnedEntry[]): Promise<ValueCheck> {
  const keys = [...new Set(earned.map((e) => e.key))]
  const rows = keys.length
    ? await db.selectFrom('validated_values').selectAll().where('value_key', 'in', keys).execute()
    : []
  const definitions = new Map(rows.map((r) => [r.value_key, r]))
  const seen = new Set<string>()
  for (const entry of earned) {
    const definition = definitions.get(entry.key)
    if (!definition) return { code: 'UNKNOWN_VALUE_KEY', message: `'${entry.key}' is not a defined value` }
    if (seen.has(entry.key)) return { code: 'DUPLICATE_VALUE_KEY', message: `'${entry.key}' is listed twice in earned` }
    seen.add(entry.key)
    if (definition.max_per_run !== null && entry.amount > definition.max_per_run) {
      return {
        code: 'EARNED_ABOVE_MAX',
        message: `'${entry.key}' may change by at most ${definition.max_per_run} per run`,
      }
    }
    if (definition.min_per_run !== null && entry.amount < definition.min_per_run) {
      return {
        code: 'EARNED_BELOW_MIN',
        message: `'${entry.key}' may change by no less than ${definition.min_per_run} per run`,
      }
    }
  }
  return null
}

async function ensureBalanceRow(db: Db, userId: string, key: string, now: number) {
  await insertOrLock(
    db,
    'validated_balances',
    db.insertInto('validated_balances').values({
      user_id: userId,
      value_key: key,
      balance: 0,
      earned_today: 0,
      earned_day: utcDay(now),
      updated_at: now,
    }),
    ['user_id', 'value_key'],
    'balance',
  ).execute()
}

/** `balance - amount` when the balance covers it; false (nothing changed) when it does not. */
async function spend(db: Db, userId: string, key: string, amount: number, now: number): Promise<boolean> {
  await ensureBalanceRow(db, userId, key, now)
  const result = await db
    .updateTable('validated_balances')
    .set((eb) => ({ balance: eb('balance', '-', amount), updated_at: now }))
    .where('user_id', '=', userId)
    .where('value_key', '=', key)
    .where('balance', '>=', amount)
    .executeTakeFirst()
  return affected(result) === 1
}

/**
 * Applies checked `earned` entries in the caller's transaction (which holds the player's lock row).
 * Credits are clamped by the daily cap and the largest balance; a spend the balance does not cover
 * answers INSUFFICIENT_BALANCE and the caller rolls every change of this step back.
 */
export async function applyEarned(
  db: Db,
  userId: string,
  earned: EarnedEntry[],
  now: number,
): Promise<{ touched: Map<string, Credit> } | { code: string; message: string }> {
  const day = utcDay(now)
  const caps = new Map(
    (
      await db
        .selectFrom('validated_values')
        .select(['value_key', 'daily_cap'])
        .where(
          'value_key',
          'in',
          earned.map((e) => e.key),
        )
        .execute()
    ).map((r) => [r.value_key, r.daily_cap]),
  )
  const touched = new Map<string, Credit>()
  for (const { key, amount } of earned) {
    if (amount < 0) {
      if (!(await spend(db, userId, key, -amount, now))) {
        return { code: 'INSUFFICIENT_BALANCE', message: `The balance of '${key}' is too low for this spend` }
      }
      touched.set(key, { requested: amount, credited: amount })
      continue
    }
    await ensureBalanceRow(db, userId, key, now)
    const row = await forUpdate(
      db,
      db
        .selectFrom('validated_balances')
        .select(['balance', 'earned_today', 'earned_day'])
        .where('user_id', '=', userId)
        .where('value_key', '=', key),
    ).executeTakeFirstOrThrow()
    const today = row.earned_day === day ? row.earned_today : 0
    const cap = caps.get(key) ?? null
    const room = cap === null ? amount : Math.max(0, cap - today)
    const credited = Math.max(0, Math.min(amount, room, MAX_SCORE - row.balance))
    if (credited > 0) {
      const result = await db
        .updateTable('validated_balances')
        .set({ balance: row.balance + credited, earned_today: today + credited, earned_day: day, updated_at: now })
        .where('user_id', '=', userId)
        .where('value_key', '=', key)
        .where('balance', '=', row.balance)
        .executeTakeFirst()
      if (affected(result) !== 1) throw new Error('balance changed under the player lock')
    }
    touched.set(key, { requested: amount, credited })
  }
  return { touched }
}

// ---- operator adjustments ---------------------------------------------------------------------

function toAdjustment(row: Database['validated_adjustments']): Adjustment {
  return {
    adjustmentId: row.id,
    userId: row.user_id,
    key: row.value_key,
    amount: row.amount,
    balance: row.balance_after,
    reason: row.reason,
    createdAt: toIso(row.created_at),
  }
}

/** Adds `amount` (negative: takes away) to a player's balance and writes the audit row, in one transaction. */
export async function adjustBalance(
  db: Db,
  userId: string,
  input: { key: string; amount: number; reason?: string },
  now: number,
): Promise<Adjustment> {
  if (!(await findUser(db, userId))) throw notFound('USER_NOT_FOUND', 'User not found')
  const { key, amount } = input
  if (amount === 0) throw badRequest('body/amount must not be 0', '/amount')
  const definition = await db
    .selectFrom('validated_values')
    .select('value_key')
    .where('value_key', '=', key)
    .executeTakeFirst()
  if (!definition) throw new AppError(422, 'UNKNOWN_VALUE_KEY', `'${key}' is not a defined value`)
  return inTransaction(db, async (trx) => {
    await lockPlayer(trx, userId, now)
    if (amount < 0) {
      if (!(await spend(trx, userId, key, -amount, now))) {
        throw new AppError(422, 'INSUFFICIENT_BALANCE', `The balance of '${key}' is lower than ${-amount}`)
      }
    } else {
      await ensureBalanceRow(trx, userId, key, now)
      const result = await trx
        .updateTable('validated_balances')
        .set((eb) => ({ balance: eb('balance', '+', amount), updated_at: now }))
        .where('user_id', '=', userId)
        .where('value_key', '=', key)
        .where('balance', '<=', MAX_SCORE - amount)
        .executeTakeFirst()
      if (affected(result) !== 1) throw badRequest(`body/amount would take the balance past ${MAX_SCORE}`, '/amount')
    }
    const { balance } = await trx
      .selectFrom('validated_balances')
      .select('balance')
      .where('user_id', '=', userId)
      .where('value_key', '=', key)
      .executeTakeFirstOrThrow()
    const row = {
      id: randomUUID(),
      user_id: userId,
      value_key: key,
      amount,
      balance_after: balance,
      reason: input.reason ?? null,
      created_at: now,
    }
    await trx.insertInto('validated_adjustments').values(row).execute()
    return toAdjustment(row)
  })
}

/** The audit trail, newest first, optionally for one player. */
export async function listAdjustments(db: Db, options: { limit: number; cursor?: string; userId?: string }) {
  let query = db.selectFrom('validated_adjustments').selectAll()
  if (options.userId) query = query.where('user_id', '=', options.userId)
  const { items, nextCursor } = await keysetPage(query, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['created_at', 'id'],
  })
  return { items: items.map(toAdjustment), nextCursor }
}
