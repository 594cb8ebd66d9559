// What analytics reads of the players: totals by kind, the first sign-up, sign-ups in a span of time, and how many of the
// players who signed up in one span were active on a day (each a COUNT over an index).
import { sql } from 'kysely'
import type { Db } from '../../db/types.js'

const count = (rows: { n: number | string | bigint } | undefined) => Number(rows?.n ?? 0)

/**
 * Players, banned players, and players by the way they sign in: anonymous, with an e-mail and password,
 * with Apple, with Google (an account with two ways in counts under both).
 */
export async function playerTotals(db: Db) {
  // Each shaped to read the narrow users_kind_idx (is_anonymous, banned_at) rather than the table.
  const all = () => db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n'))
  const [players, anonymous, email, banned, providers] = await Promise.all([
    all().executeTakeFirst(),
    all().where('is_anonymous', '=', 1).executeTakeFirst(),
    all().where('is_anonymous', '=', 0).where('password_hash', 'is not', null).executeTakeFirst(),
    all().where('is_anonymous', 'in', [0, 1]).where('banned_at', 'is not', null).executeTakeFirst(),
    db
      .selectFrom('user_identities')
      .select(['provider', sql<number>`count(distinct user_id)`.as('n')])
      .groupBy('provider')
      .execute(),
  ])
  const byProvider = new Map(providers.map((r) => [r.provider as string, Number(r.n)]))
  return {
    players: count(players),
    anonymous: count(anonymous),
    email: count(email),
    apple: byProvider.get('apple') ?? 0,
    google: byProvider.get('google') ?? 0,
    banned: count(banned),
  }
}

/** When the oldest player signed up (epoch ms), or null with no player: nothing is counted before it. */
export async function firstSignupAt(db: Db): Promise<number | null> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.min<number>('created_at').as('first'))
    .executeTakeFirst()
  return row?.first === null || row?.first === undefined ? null : Number(row.first)
}

/** Players created in [start, end). */
export async function signupsBetween(db: Db, start: number, end: number): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', start)
    .where('created_at', '<', end)
    .executeTakeFirst()
  return count(row)
}

/** Of the players created in [start, end), how many have an activity mark on `day` (epoch days). */
export async function signupsActiveOn(db: Db, start: number, end: number, day: number): Promise<number> {
  const row = await db
    .selectFrom('users as u')
    .innerJoin('player_activity as a', (join) => join.onRef('a.user_id', '=', 'u.id').on('a.day', '=', day))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('u.created_at', '>=', start)
    .where('u.created_at', '<', end)
    .executeTakeFirst()
  return count(row)
}

/** How many players there are (one COUNT over an index): a game's size in the server owner's list of games. */
export async function playerCount(db: Db): Promise<number> {
  return count(
    await db
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirst(),
  )
}
