import type { RowDataPacket } from 'mysql2/promise'
import type { Test } from 'tap'
import { GIFT_CODE, MAX_REDEMPTIONS, RUN_VALUE, type Soak } from './soak.js'

/**
 * The soaks' checks once the load has stopped (test/resilience/soak.test.ts, galera-soak.test.ts): every
 * write a server acknowledged is looked up in the database, and what the clients were told is summed
 * up for the test's report.
 */

/** Runs a query on the soak's database (a connection of the test's own), answering the rows. */
export type Rows = (query: string, values?: unknown[]) => Promise<RowDataPacket[]>

/** The acknowledged writes checked, by kind, and how many of them the database lacks. */
export interface Checked {
  acked: { signups: number; submits: number; saves: number; runs: number; redemptions: number }
  lost: number
}

/**
 * Every acknowledged write of `soak` looked up through `rows`: sign-ups stored, best scores at least the
 * acknowledged ones (and sent), save chains whole (version and data), the gift code's redemptions
 * exactly its uses and each "redeemed" stored, accepted runs stored once with their credits and scores.
 * `where` names the database read (a node of a cluster) in the assertions.
 */
export async function checkAcknowledged(t: Test, soak: Soak, rows: Rows, where = ''): Promise<Checked> {
  const on = where ? ` (${where})` : ''
  const { players } = soak
  const ids = players.map((p) => p.userId)
  let lost = 0
  const none = <T>(found: T[], what: string) => {
    lost += found.length
    t.same(found, [], `${what}${on}`)
  }

  const users = new Set((await rows('SELECT id FROM users WHERE id IN (?)', [ids])).map((r) => r.id))
  none(
    ids.filter((id) => !users.has(id)),
    `every acknowledged sign-up is stored (${players.length})`,
  )

  const scores = new Map<string, number>()
  for (const r of await rows(
    'SELECT l.board_key, e.user_id, e.score FROM leaderboard_entries e JOIN leaderboards l ON l.id = e.board_id',
  ))
    scores.set(`${r.board_key}/${r.user_id}`, Number(r.score))
  none(
    players.filter((p) => {
      const stored = scores.get(`default/${p.userId}`) ?? 0
      return stored < p.ackedScore || stored > p.sentScore
    }),
    'every best score is at least the best acknowledged one, and was sent',
  )

  const saves = new Map(
    (await rows('SELECT user_id, data, version FROM cloud_saves')).map((r) => [
      r.user_id as string,
      { version: Number(r.version), data: Buffer.from(r.data).toString('utf8') },
    ]),
  )
  none(
    players.flatMap((p) => {
      const stored = saves.get(p.userId) ?? { version: 0, data: '' }
      const { version, known, pending } = p.save
      const holds =
        (stored.version === version && (version === 0 || known.has(stored.data))) ||
        (stored.version === version + 1 && pending.has(stored.data))
      return holds ? [] : [{ userId: p.userId, stored, client: { version, known: [...known], pending: [...pending] } }]
    }),
    'every save chain is whole: the stored version is the last one a client saw, no gap, no repeat',
  )

  const [code] = await rows('SELECT id, redemption_count FROM gift_codes WHERE code = ?', [GIFT_CODE])
  const redeemed = new Set(
    (await rows('SELECT user_id FROM gift_code_redemptions WHERE gift_code_id = ?', [code!.id])).map((r) => r.user_id),
  )
  const tried = players.filter((p) => p.redeem !== 'none')
  const told = tried.filter((p) => p.redeem === 'redeemed' || p.redeem === 'redeemed-unanswered')
  t.ok(tried.length > MAX_REDEMPTIONS, `more players tried the code (${tried.length}) than it allows${on}`)
  t.equal(Number(code!.redemption_count), redeemed.size, `the count matches the redemptions stored${on}`)
  t.equal(redeemed.size, MAX_REDEMPTIONS, `exactly maxRedemptions redemptions${on}`)
  none(
    told.filter((p) => !redeemed.has(p.userId)).map((p) => p.userId),
    'every player told "redeemed" has the redemption',
  )
  t.same(
    tried.filter((p) => p.redeem === 'exhausted' && redeemed.has(p.userId)).map((p) => p.userId),
    [],
    `no player told "exhausted" has one${on}`,
  )
  t.equal(tried.filter((p) => p.redeem === 'unknown').length, 0, `every redemption got a definite answer${on}`)
  t.equal(told.length, redeemed.size, `successful answers = redemptions stored${on}`)

  const runs = await rows('SELECT id, user_id, outcome FROM validated_runs')
  const acceptedInDb = new Set(runs.filter((r) => r.outcome === 'ACCEPTED').map((r) => r.id))
  const ackedRuns = players.flatMap((p) => p.acceptedRuns)
  none(
    ackedRuns.filter((id) => !acceptedInDb.has(id)),
    `every run answered accepted is stored accepted (${ackedRuns.length})`,
  )
  t.same(
    await rows(
      "SELECT run_id, COUNT(*) AS n FROM validated_submissions WHERE code = 'ACCEPTED' GROUP BY run_id HAVING COUNT(*) > 1",
    ),
    [],
    `no run accepted twice${on}`,
  )
  const balances = new Map(
    (await rows('SELECT user_id, balance FROM validated_balances WHERE value_key = ?', [RUN_VALUE.key])).map((r) => [
      r.user_id as string,
      Number(r.balance),
    ]),
  )
  t.same(
    players.filter((p) => {
      const accepted = runs.filter((r) => r.user_id === p.userId && r.outcome === 'ACCEPTED').length
      return (balances.get(p.userId) ?? 0) !== accepted * RUN_VALUE.amount
    }),
    [],
    `every balance is its player's accepted runs' credits, each once${on}`,
  )
  none(
    players.filter((p) => (scores.get(`runs/${p.userId}`) ?? 0) < p.ackedRunScore),
    'every accepted run score is on the board',
  )

  return {
    acked: {
      signups: players.length,
      submits: players.reduce((n, p) => n + p.ackedSubmits, 0),
      saves: players.reduce((n, p) => n + p.save.acked, 0),
      runs: ackedRuns.length,
      redemptions: told.length,
    },
    lost,
  }
}

/** The soak's figures as test comments: requests by status, the slowest, the writes checked. */
export function reportSoak(t: Test, soak: Soak, loadMs: number, clients: number, checked: Checked): void {
  const { traffic } = soak
  const statuses = [...traffic.byStatus].sort(([a], [b]) => a.localeCompare(b))
  const total = Object.values(checked.acked).reduce((a, b) => a + b, 0)
  t.comment(`soak: ${traffic.requests} requests in ${(loadMs / 1000).toFixed(1)} s, ${clients} clients`)
  t.comment(`soak: by status: ${statuses.map(([status, n]) => `${status} ×${n}`).join(', ')}`)
  t.comment(`soak: slowest ${traffic.maxMs.toFixed(0)} ms (${traffic.slowest})`)
  t.comment(
    `soak: acknowledged writes checked: ${total} (${Object.entries(checked.acked)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}), lost ${checked.lost}`,
  )
}
