import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/types.js'
import type { News } from './tables.js'
import { affected, isUniqueViolation } from '../../db/dialect.js'
import { COPIED, EXISTS, refused, type ImportOutcome } from '../../db/import-outcome.js'
import { guarded } from '../../db/savepoint.js'
import { inTransaction, withTransaction } from '../../db/transaction.js'
import { badRequest, notFound } from '../../platform/core/errors.js'
import { parseIsoTime, toIso } from '../../platform/core/clock.js'
import { bumpChangeCounter } from '../../db/change-counters.js'
import { canonicalLanguageTag, languageKey } from '../../platform/content/language-tag.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { AdminNews, NewsItem, UpdateNewsBody } from './schemas.js'

/**
 * The news table is this feature's. Players read an in-memory NewsView through the shared content
 * cache. Being released depends on the clock as well as on writes, so the view keeps scheduled items
 * too and every request filters by its own `now`: an item appears when its time comes, with no write.
 */
export const NEWS_LIMIT_MAX = 100

interface CachedItem {
  releaseMs: number
  item: NewsItem
}

/** The news held in memory per app, pre-sorted and per language, so reads cost no query. */
export interface NewsView {
  /** Newest release first; scheduled items (at load time) lead. */
  all: CachedItem[]
  /** The same, per lower-cased language tag. */
  byLanguage: Map<string, CachedItem[]>
}

const newestFirst = (a: News, b: News) => b.release_date - a.release_date || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0)

/**
 * Bounded: every scheduled item, plus the newest NEWS_LIMIT_MAX released items overall and per
 * language. Items released later are all newer than those, so any answer up to the limit stays
 * exact until the next write reloads the view.
 */
export async function loadNews(db: Db, now: number): Promise<NewsView> {
  const released = () =>
    db
      .selectFrom('news')
      .selectAll()
      .where('release_date', '<=', now)
      .orderBy('release_date', 'desc')
      .orderBy('id', 'desc')
      .limit(NEWS_LIMIT_MAX)
  const scheduled = await db.selectFrom('news').selectAll().where('release_date', '>', now).execute()
  const languages = await db.selectFrom('news').select('language_code').distinct().execute()
  const batches = await Promise.all([
    released().execute(),
    ...languages.map((l) => released().where('language_code', '=', l.language_code).execute()),
  ])
  const rows = new Map<string, News>()
  for (const row of [...scheduled, ...batches.flat()]) rows.set(row.id, row)
  const all = [...rows.values()].sort(newestFirst).map((row) => ({
    releaseMs: row.release_date,
    item: {
      id: row.id,
      title: row.title,
      message: row.message,
      releaseDate: toIso(row.release_date),
      languageCode: row.language_code,
    },
  }))
  const byLanguage = new Map<string, CachedItem[]>()
  for (const entry of all) {
    const id = languageKey(entry.item.languageCode)
    const list = byLanguage.get(id)
    if (list) list.push(entry)
    else byLanguage.set(id, [entry])
  }
  return { all, byLanguage }
}

function languageFilter(raw: string | null | undefined, path: string): string | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined
  const tag = canonicalLanguageTag(raw)
  if (!tag) throw badRequest(`${path} must be a BCP 47 language tag such as "en" or "pt-BR"`, '/languageCode')
  return tag
}

/** Released items (release date ≤ now), newest first. */
export function releasedNews(
  view: NewsView,
  options: { limit: number; languageCode?: string | null },
  now: number,
): NewsItem[] {
  const language = languageFilter(options.languageCode, 'querystring/languageCode')
  if (options.limit === 0) return []
  const list = language === undefined ? view.all : (view.byLanguage.get(languageKey(language)) ?? [])
  const answer: NewsItem[] = []
  for (const entry of list) {
    if (entry.releaseMs > now) continue
    answer.push(entry.item)
    if (answer.length === options.limit) break
  }
  return answer
}

// ---- operator -------------------------------------------------------------------------------

function toAdminNews(row: News, now: number): AdminNews {
  return {
    id: row.id,
    title: row.title,
    message: row.message,
    languageCode: row.language_code,
    releaseDate: toIso(row.release_date),
    scheduled: row.release_date > now,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  }
}

function requiredLanguage(raw: string): string {
  const tag = canonicalLanguageTag(raw)
  if (!tag) throw badRequest('body/languageCode must be a BCP 47 language tag such as "en" or "pt-BR"', '/languageCode')
  return tag
}

async function findNews(db: Db, id: string) {
  return db.selectFrom('news').selectAll().where('id', '=', id).executeTakeFirst()
}

/** Every item, scheduled ones included, latest release first. */
export async function listNews(
  db: Db,
  options: { limit: number; cursor?: string; languageCode?: string | null },
  now: number,
) {
  const language = languageFilter(options.languageCode, 'querystring/languageCode')
  let select = db.selectFrom('news').selectAll()
  if (language !== undefined) select = select.where('language_code', '=', language)
  const { items, nextCursor } = await keysetPage(select, {
    cursor: options.cursor,
    limit: options.limit,
    keys: ['release_date', 'id'],
  })
  return { items: items.map((row) => toAdminNews(row, now)), nextCursor }
}

/** A news item, bumping the change counter so every instance reloads its view. */
export async function createNews(
  db: Db,
  body: { title: string; message: string; languageCode: string; releaseDate?: string | null },
  now: number,
): Promise<AdminNews> {
  const row: News = {
    id: randomUUID(),
    title: body.title,
    message: body.message,
    language_code: requiredLanguage(body.languageCode),
    release_date: body.releaseDate ? parseIsoTime(body.releaseDate, 'body/releaseDate') : now,
    created_at: now,
    updated_at: now,
  }
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'news')
    await trx.insertInto('news').values(row).execute()
  })
  return toAdminNews(row, now)
}

/** Changes the fields given, bumping the change counter in the same transaction. */
export async function updateNews(db: Db, id: string, body: UpdateNewsBody, now: number): Promise<AdminNews> {
  const changes = {
    ...(body.title !== undefined && { title: body.title }),
    ...(body.message !== undefined && { message: body.message }),
    ...(body.languageCode !== undefined && { language_code: requiredLanguage(body.languageCode) }),
    ...(body.releaseDate && { release_date: parseIsoTime(body.releaseDate, 'body/releaseDate') }),
    updated_at: now,
  }
  const row = await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'news')
    const updated = affected(await trx.updateTable('news').set(changes).where('id', '=', id).executeTakeFirst())
    if (updated === 0) throw notFound('NOT_FOUND', 'News item not found')
    return (await findNews(trx, id))!
  })
  return toAdminNews(row, now)
}

/** Deletes an item, bumping the change counter in the same transaction. */
export async function deleteNews(db: Db, id: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'news')
    const deleted = affected(await trx.deleteFrom('news').where('id', '=', id).executeTakeFirst())
    if (deleted === 0) throw notFound('NOT_FOUND', 'News item not found')
  })
}

/** A news item brought over from another server with its id: the primary key makes a second import a no-op. */
export async function importNews(
  db: Db,
  item: { id: string; title: string; message: string; languageCode: string; releaseDate: number; createdAt: number },
): Promise<ImportOutcome> {
  const language = canonicalLanguageTag(item.languageCode)
  if (!language) return refused(`language "${item.languageCode}" is not a BCP 47 language tag`)
  try {
    // A dry run imports inside a transaction, which the refusal must leave usable (`guarded`).
    await guarded(db, () =>
      withTransaction(db, async (trx) => {
        await trx
          .insertInto('news')
          .values({
            id: item.id.toLowerCase(),
            title: item.title,
            message: item.message,
            language_code: language,
            release_date: item.releaseDate,
            created_at: item.createdAt,
            updated_at: item.createdAt,
          })
          .execute()
        await bumpChangeCounter(trx, 'news')
      }),
    )
    return COPIED
  } catch (error) {
    if (isUniqueViolation(error)) return EXISTS
    throw error
  }
}

// ---- copy between games (features/games/copy.ts) --------------------------------------------

/** A news item as copying compares it (its id is the key). */
export interface NewsCopy {
  title: string
  message: string
  languageCode: string
  releaseDate: string
}

/** Every item by id: what copying the news to another game compares. */
export async function snapshotNews(db: Db): Promise<Record<string, NewsCopy>> {
  const rows = await db.selectFrom('news').selectAll().execute()
  return Object.fromEntries(
    rows.map((r) => [
      r.id,
      { title: r.title, message: r.message, languageCode: r.language_code, releaseDate: toIso(r.release_date) },
    ]),
  )
}

/** Writes the items of `put` (with their ids) and deletes those of `remove`, in one transaction. */
export async function replaceNews(
  db: Db,
  change: { put: Record<string, NewsCopy>; remove: readonly string[] },
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'news')
    for (const [id, item] of Object.entries(change.put)) {
      const fields = {
        title: item.title,
        message: item.message,
        language_code: requiredLanguage(item.languageCode),
        release_date: parseIsoTime(item.releaseDate, 'releaseDate'),
        updated_at: now,
      }
      const updated = affected(await trx.updateTable('news').set(fields).where('id', '=', id).executeTakeFirst())
      if (updated === 0)
        await trx
          .insertInto('news')
          .values({ id, ...fields, created_at: now })
          .execute()
    }
    if (change.remove.length > 0)
      await trx
        .deleteFrom('news')
        .where('id', 'in', [...change.remove])
        .execute()
  })
}
