import { type Kysely } from 'kysely'
import { engineOf } from '../../../db/engines/index.js'

/**
 * The rank index also holds `score`, so the page reads (top, around) find every column they answer
 * in the index: before, each entry of a page was one more look-up in the table for its score (20 on
 * an around of range 10). A submit writes this index anyway (its rank score moves the entry), so the
 * write costs the same; an index entry is 8 bytes longer.
 */
const COLUMNS = ['board_id', 'period', 'hidden', 'rank_score', 'reached_at', 'user_id']

async function rebuild(db: Kysely<any>, columns: string[]): Promise<void> {
  // MySQL names the table of an index to drop; SQLite refuses the ON clause.
  await engineOf(db).dropIndex(db, 'leaderboard_entries_rank_idx', 'leaderboard_entries').execute()
  await db.schema.createIndex('leaderboard_entries_rank_idx').on('leaderboard_entries').columns(columns).execute()
}

export async function up(db: Kysely<any>): Promise<void> {
  await rebuild(db, [...COLUMNS, 'score'])
}

export async function down(db: Kysely<any>): Promise<void> {
  await rebuild(db, COLUMNS)
}
