import type { Db } from '../../db/types.js'
import { affected, containsExact, upsert } from '../../db/dialect.js'
import { inTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { bumpChangeCounter } from '../../db/change-counters.js'
import { contentEtag } from '../../platform/http/etag.js'
import { canonicalLanguageTag, fallbackChain, languageKey } from '../../platform/content/language-tag.js'
import type { AdminTranslation, LocalizationResponse, TranslationGrid } from './schemas.js'
import { keysetPage } from '../../platform/http/pagination.js'
import { reservedKeyCheck } from '../../platform/content/reserved-keys.js'

/**
 * The localizations table is this feature's: one value per (language, key). Languages are stored
 * in canonical BCP 47 form and looked up lower-cased, so `pt-br`, `PT-BR` and `pt-BR` are one
 * language. Players read an in-memory LocalizationView through the shared content cache.
 */
export const RESERVED_KEYS = new Set(['all', 'filter', 'languages'])

interface Language {
  tag: string
  values: Map<string, string>
}

/** The translations held in memory per app, by language, so reads cost no query. */
export interface LocalizationView {
  defaultLanguage: string
  /** By lower-cased tag. */
  byLanguage: Map<string, Language>
  /** Languages with at least one value, canonical form, sorted. */
  languages: string[]
  etag: string
  /** The merged `/all` translations per fallback chain, serialized on first use and kept for the version. */
  merged: Map<string, { json: string; total: number }>
}

/** Parses a request's language: absent → the default language; malformed → 400. */
export function requestedLanguage(
  raw: string | null | undefined,
  defaultLanguage: string,
  path = 'querystring/lang',
): string {
  if (raw === undefined || raw === null || raw === '') return defaultLanguage
  const tag = canonicalLanguageTag(raw)
  if (!tag) throw badRequest(`${path} must be a BCP 47 language tag such as "en" or "pt-BR"`, `/${path.split('/')[1]}`)
  return tag
}

/** The loader of the view, sorted once so every instance answers in the same order. */
export function loadLocalization(defaultLanguage: string) {
  return async (db: Db): Promise<LocalizationView> => {
    const rows = await db.selectFrom('localizations').select(['language', 'localization_key', 'value']).execute()
    rows.sort((a, b) => compare(a.language, b.language) || compare(a.localization_key, b.localization_key))
    const byLanguage = new Map<string, Language>()
    for (const row of rows) {
      const id = languageKey(row.language)
      let language = byLanguage.get(id)
      if (!language) byLanguage.set(id, (language = { tag: row.language, values: new Map() }))
      language.values.set(row.localization_key, row.value)
    }
    const languages = [...byLanguage.values()].map((l) => l.tag)
    const etag = contentEtag(
      'localization',
      defaultLanguage,
      JSON.stringify(rows.map((r) => [r.language, r.localization_key, r.value])),
    )
    return { defaultLanguage, byLanguage, languages, etag, merged: new Map() }
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** The languages of the lookup chain that have content, most specific first. */
function presentChain(view: LocalizationView, language: string): Language[] {
  return fallbackChain(language, view.defaultLanguage)
    .map((tag) => view.byLanguage.get(languageKey(tag)))
    .filter((l): l is Language => l !== undefined)
}

/** A key's text in the asked language, else in its fallbacks, else in the default language. */
export function translate(view: LocalizationView, key: string, language: string): LocalizationResponse {
  for (const candidate of presentChain(view, language)) {
    const value = candidate.values.get(key)
    if (value !== undefined) {
      return { localizationKey: key, key, language, value, found: true, resolvedLang: candidate.tag }
    }
  }
  return { localizationKey: key, key, language, value: null, found: false, resolvedLang: null }
}

/**
 * Every key of the language, gaps filled from its base language and then the default language, as
 * the JSON body of `/all`. The merged map is serialized once per fallback chain and version; only the
 * requested language is spliced in per request.
 */
export function allTranslationsJson(view: LocalizationView, language: string): string {
  const chain = presentChain(view, language)
  const id = chain.map((l) => l.tag).join('|')
  let merged = view.merged.get(id)
  if (!merged) {
    const values = new Map<string, string>()
    for (const candidate of [...chain].reverse()) for (const [key, value] of candidate.values) values.set(key, value)
    const translations = Object.fromEntries([...values].sort(([a], [b]) => compare(a, b)))
    merged = { json: JSON.stringify(translations), total: values.size }
    view.merged.set(id, merged)
  }
  return `{"language":${JSON.stringify(language)},"translations":${merged.json},"total":${merged.total}}`
}

// ---- operator -------------------------------------------------------------------------------

const assertWritableKey = reservedKeyCheck(RESERVED_KEYS, 'localization key')

function languageParam(raw: string): string {
  const tag = canonicalLanguageTag(raw)
  if (!tag) throw badRequest('params/lang must be a BCP 47 language tag such as "en" or "pt-BR"', '/lang')
  return tag
}

async function writeTranslations(db: Db, language: string, entries: Array<[string, string]>, now: number) {
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'localization')
    await upsert(
      trx,
      'localizations',
      entries.map(([key, value]) => ({ language, localization_key: key, value, updated_at: now })),
      { key: ['language', 'localization_key'], update: ['value', 'updated_at'] },
    )
  })
}

/** All or nothing: one bad key refuses the whole batch before anything is written. */
export async function upsertTranslations(
  db: Db,
  rawLanguage: string,
  translations: Record<string, string>,
  now: number,
) {
  const language = languageParam(rawLanguage)
  const entries = Object.entries(translations)
  for (const [key] of entries) assertWritableKey(key, `/translations/${key}`)
  if (entries.length > 0) await writeTranslations(db, language, entries, now)
  return { language, upserted: entries.length, translations }
}

/** Sets one key's text in one language, bumping the change counter in the same transaction. */
export async function putTranslation(
  db: Db,
  rawLanguage: string,
  key: string,
  value: string,
  now: number,
): Promise<AdminTranslation> {
  const language = languageParam(rawLanguage)
  assertWritableKey(key, '/key')
  await writeTranslations(db, language, [[key, value]], now)
  const row = await db
    .selectFrom('localizations')
    .selectAll()
    .where('language', '=', language)
    .where('localization_key', '=', key)
    .executeTakeFirst()
  if (!row) throw new AppError(409, 'CONFLICT', 'The value was deleted while it was being written')
  return { language: row.language, key: row.localization_key, value: row.value, updatedAt: toIso(row.updated_at) }
}

/** Removes one key's text in one language, bumping the change counter in the same transaction. */
export async function deleteTranslation(db: Db, rawLanguage: string, key: string) {
  const language = languageParam(rawLanguage)
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'localization')
    const deleted = affected(
      await trx
        .deleteFrom('localizations')
        .where('language', '=', language)
        .where('localization_key', '=', key)
        .executeTakeFirst(),
    )
    // Thrown inside the transaction, so the counter bump is rolled back with it.
    if (deleted === 0) throw notFound('NOT_FOUND', `No "${language}" value for key "${key}"`)
  })
  return { language, key, deleted: true as const }
}

/** Removes a language with all its keys, bumping the change counter in the same transaction. */
export async function deleteLanguage(db: Db, rawLanguage: string) {
  const language = languageParam(rawLanguage)
  const deleted = await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'localization')
    const count = affected(await trx.deleteFrom('localizations').where('language', '=', language).executeTakeFirst())
    if (count === 0) throw notFound('NOT_FOUND', `No values for language "${language}"`)
    return count
  })
  return { language, deleted }
}

/**
 * The operator's grid: a page of keys (code-point order, keyset-paged) with each key's value in every
 * language that has one, and the languages there are. The key column compares in binary on both
 * databases (utf8mb4_bin on MySQL), so the order, the cursor and the filter agree on both.
 */
export async function listTranslationKeys(
  db: Db,
  { cursor, limit, query }: { cursor?: string; limit: number; query?: string },
): Promise<TranslationGrid> {
  let keys = db.selectFrom('localizations').select('localization_key').distinct()
  // Keys are case-sensitive (contract §5.6): so is their search.
  if (query) keys = keys.where(containsExact(db, 'localization_key', query))
  const page = await keysetPage(keys, { cursor, limit, keys: ['localization_key'], direction: 'asc' })
  const names = page.items.map((row) => row.localization_key)
  const [rows, languages] = await Promise.all([
    names.length === 0
      ? Promise.resolve([])
      : db
          .selectFrom('localizations')
          .select(['language', 'localization_key', 'value'])
          .where('localization_key', 'in', names)
          .execute(),
    db.selectFrom('localizations').select('language').distinct().execute(),
  ])
  const values = new Map(names.map((key) => [key, {} as Record<string, string>]))
  for (const row of rows) values.get(row.localization_key)![row.language] = row.value
  return {
    items: names.map((key) => ({ key, values: values.get(key)! })),
    languages: languages.map((row) => row.language).sort(compare),
    nextCursor: page.nextCursor,
  }
}

// ---- copy between games (features/games/copy.ts) --------------------------------------------

/** Every value, keyed `<language>/<key>` (a language tag holds no `/`): what copying localization compares. */
export async function snapshotLocalization(db: Db): Promise<Record<string, string>> {
  const rows = await db.selectFrom('localizations').select(['language', 'localization_key', 'value']).execute()
  return Object.fromEntries(rows.map((r) => [`${r.language}/${r.localization_key}`, r.value]))
}

/** Writes the values of `put` and deletes those of `remove` (keyed as the snapshot), in one transaction. */
export async function replaceLocalization(
  db: Db,
  change: { put: Record<string, string>; remove: readonly string[] },
  now: number,
): Promise<void> {
  const split = (id: string) => [id.slice(0, id.indexOf('/')), id.slice(id.indexOf('/') + 1)] as const
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'localization')
    const byLanguage = new Map<string, Array<[string, string]>>()
    for (const [id, value] of Object.entries(change.put)) {
      const [language, key] = split(id)
      byLanguage.set(language, [...(byLanguage.get(language) ?? []), [key, value]])
    }
    for (const [language, entries] of byLanguage) await writeTranslations(trx, language, entries, now)
    for (const id of change.remove) {
      const [language, key] = split(id)
      await trx
        .deleteFrom('localizations')
        .where('language', '=', language)
        .where('localization_key', '=', key)
        .execute()
    }
  })
}
