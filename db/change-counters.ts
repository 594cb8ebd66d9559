import { sql } from 'kysely'
import type { Db } from './types.js'
import { upsert } from './dialect.js'
import { prepared } from './prepared.js'

/**
 * Change counters, one row per key in `content_versions`: a write bumps its key's counter in its own
 * transaction, and each process reads the counter (one primary-key read) to know when a copy it holds
 * in memory is stale, reloading only when the counter moved. The content features' caches
 * (platform/content/content-cache.ts) and the banned players (platform/security/banned-players.ts)
 * keep their copies this way, and so does every instance's list of games and their keys (platform/games/).
 *
 * A reader reads the counter before the rows it copies: a write landing in between leaves rows newer
 * than the counter, which costs one more reload later, never a stale copy kept as current.
 *
 * A counter's row is also a guard row: every transaction that bumps it writes the same row, so two of
 * them are ordered, on one server by its write lock and on a Galera cluster by certification (one of
 * two that wrote it on two nodes is aborted and run again). `operators` is bumped for that alone, by
 * the changes that may take the last owner away.
 */
export type ChangeCounter = 'remote-config' | 'localization' | 'news' | 'banned-players' | 'games' | 'operators'

/** Marks the key's data as changed; call inside the transaction of the write. */
export async function bumpChangeCounter(db: Db, key: ChangeCounter): Promise<void> {
  await upsert(db, 'content_versions', [{ feature: key, version: 1 }], {
    key: ['feature'],
    set: (stored) => ({ version: sql`${stored('version')} + 1` }),
  })
}

const readCounter = prepared((db, p: { key: string }) =>
  db.selectFrom('content_versions').select('version').where('feature', '=', p.key),
)

/** The key's counter; 0 before its first change. */
export async function readChangeCounter(db: Db, key: ChangeCounter): Promise<number> {
  const row = await readCounter.first(db, { key })
  return row ? Number(row.version) : 0
}
