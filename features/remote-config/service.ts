import type { Db } from '../../db/types.js'
import type { RemoteConfig } from './tables.js'
import { affected, isUniqueViolation, upsert } from '../../db/dialect.js'
import { COPIED, EXISTS, refused, type ImportOutcome } from '../../db/import-outcome.js'
import { guarded } from '../../db/savepoint.js'
import { inTransaction, withTransaction } from '../../db/transaction.js'
import { AppError, badRequest, notFound } from '../../platform/core/errors.js'
import { toIso } from '../../platform/core/clock.js'
import { bumpChangeCounter } from '../../db/change-counters.js'
import { contentEtag } from '../../platform/http/etag.js'
import { keysetPage } from '../../platform/http/pagination.js'
import type { AdminConfig, MatchType } from './schemas.js'
import { reservedKeyCheck } from '../../platform/content/reserved-keys.js'

/**
 * The remote_configs table is this feature's. Players read an in-memory copy (RemoteConfigView,
 * loaded by `loadRemoteConfig` through the shared content cache); the operator writes through the
 * functions below, each bumping the feature's content version in the same transaction.
 */
export const RESERVED_KEYS = new Set(['all', 'filter'])

/** The configs held in memory per app, so reads cost no query. */
export interface RemoteConfigView {
  values: Map<string, string>
  /** Sorted by key, so /all and /filter answer in a stable order. */
  keys: string[]
  /** The whole `/all` body, serialized once per version. */
  allJson: string
  etag: string
}

/** The loader of the view, sorted by code unit so every instance answers in the same order. */
export async function loadRemoteConfig(db: Db): Promise<RemoteConfigView> {
  const rows = await db.selectFrom('remote_configs').select(['config_key', 'config_value']).execute()
  // Code-unit order, not locale order: the same on every instance and in every collation.
  rows.sort((a, b) => (a.config_key < b.config_key ? -1 : a.config_key > b.config_key ? 1 : 0))
  const values = new Map(rows.map((r) => [r.config_key, r.config_value]))
  const configs = Object.fromEntries(values)
  const allJson = JSON.stringify({ configs, total: rows.length })
  return { values, keys: [...values.keys()], allJson, etag: contentEtag('remote-config', allJson) }
}

// ---- filter patterns ---------------------------------------------------------------------

const PATTERN_TEXT = /^[A-Za-z0-9._*-]+$/
const MAX_WILDCARDS = 10

/** A parsed /filter pattern, compiled once per request. */
export interface KeyPattern {
  pattern: string
  matchType: MatchType
  matches(key: string): boolean
}

/** Parses a filter pattern; a bad one is a 400 that says what is wrong. */
export function parsePattern(pattern: string): KeyPattern {
  const fail = (why: string) => badRequest(`querystring/pattern ${why}`, '/pattern')
  if (pattern.length > 102) throw fail('must be at most 102 characters')
  if (!PATTERN_TEXT.test(pattern)) throw fail('may contain only letters, digits, ".", "_", "-" and "*"')
  if (pattern.includes('**')) throw fail('must not contain "**"')
  const segments = pattern.split('*')
  const wildcards = segments.length - 1
  if (wildcards > MAX_WILDCARDS) throw fail(`must contain at most ${MAX_WILDCARDS} "*" wildcards`)
  if (segments.every((s) => s === '')) throw fail('must contain key text, not only "*"')
  const leading = pattern.startsWith('*')
  const trailing = pattern.endsWith('*')
  let matchType: MatchType = 'GLOB'
  if (wildcards === 0 || (wildcards === 1 && trailing)) matchType = 'PREFIX'
  else if (wildcards === 1 && leading) matchType = 'SUFFIX'
  else if (wildcards === 2 && leading && trailing) matchType = 'CONTAINS'
  // No wildcard matches as a prefix too (the hosted API's rule): `ui` finds `ui.color`.
  const anchoredEnd = wildcards > 0 && !trailing
  return { pattern, matchType, matches: (key) => globMatch(segments, key, anchoredEnd) }
}

/**
 * `*` matches any run of characters. Greedy leftmost matching of the literal segments is exact for
 * this wildcard alone and linear in the key, so a pattern like `a*a*a*a*b` cannot blow up the way a
 * backtracking regular expression would.
 */
function globMatch(segments: string[], key: string, anchoredEnd: boolean): boolean {
  const first = segments[0]!
  if (!key.startsWith(first)) return false
  if (segments.length === 1) return true
  const last = segments[segments.length - 1]!
  let at = first.length
  for (let i = 1; i < segments.length - 1; i++) {
    const found = key.indexOf(segments[i]!, at)
    if (found < 0) return false
    at = found + segments[i]!.length
  }
  if (!anchoredEnd) return true
  return key.length - last.length >= at && key.endsWith(last)
}

/** The configs whose key the pattern matches, in key order. */
export function filterConfigs(view: RemoteConfigView, pattern: KeyPattern): Record<string, string> {
  const configs: Record<string, string> = {}
  for (const key of view.keys) if (pattern.matches(key)) configs[key] = view.values.get(key)!
  return configs
}

// ---- operator -------------------------------------------------------------------------------

const assertWritableKey = reservedKeyCheck(RESERVED_KEYS, 'config key')

function toAdminConfig(row: RemoteConfig): AdminConfig {
  return {
    configKey: row.config_key,
    configValue: row.config_value,
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
  }
}

async function findConfig(db: Db, key: string) {
  return db.selectFrom('remote_configs').selectAll().where('config_key', '=', key).executeTakeFirst()
}

/** Most recently changed first. */
export async function listConfigs(db: Db, options: { limit: number; cursor?: string }) {
  const { items, nextCursor } = await keysetPage(db.selectFrom('remote_configs').selectAll(), {
    ...options,
    keys: ['updated_at', 'config_key'],
  })
  return { items: items.map(toAdminConfig), nextCursor }
}

async function writeConfigs(db: Db, configs: Array<[string, string]>, now: number) {
  await inTransaction(db, async (trx) => {
    // The counter first: concurrent writers queue on its row instead of deadlocking over key rows.
    await bumpChangeCounter(trx, 'remote-config')
    await upsert(
      trx,
      'remote_configs',
      configs.map(([key, value]) => ({ config_key: key, config_value: value, created_at: now, updated_at: now })),
      { key: ['config_key'], update: ['config_value', 'updated_at'] },
    )
  })
}

/** Sets one config, refusing the reserved keys that the read routes' paths use. */
export async function putConfig(db: Db, key: string, value: string, now: number): Promise<AdminConfig> {
  assertWritableKey(key, '/configKey')
  await writeConfigs(db, [[key, value]], now)
  const row = await findConfig(db, key)
  if (!row) throw new AppError(409, 'CONFLICT', 'The config was deleted while it was being written')
  return toAdminConfig(row)
}

/** All or nothing: one bad key refuses the whole import before anything is written. */
export async function importConfigs(db: Db, configs: Record<string, string>, now: number) {
  const entries = Object.entries(configs)
  for (const [key] of entries) assertWritableKey(key, `/configs/${key}`)
  if (entries.length > 0) await writeConfigs(db, entries, now)
  return { imported: entries.length, configs }
}

/** Deletes one config, bumping the change counter in the same transaction. */
export async function deleteConfig(db: Db, key: string): Promise<void> {
  await inTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'remote-config')
    const deleted = affected(await trx.deleteFrom('remote_configs').where('config_key', '=', key).executeTakeFirst())
    // Thrown inside the transaction, so the counter bump is rolled back with it.
    if (deleted === 0) throw notFound('NOT_FOUND', `No config with key "${key}"`)
  })
}

/**
 * A config brought over from another server. The primary key decides: a key already set here is left
 * as it is (an operator's value is never overwritten), and a second import changes nothing.
 */
export async function importConfig(db: Db, key: string, value: string | null, now: number): Promise<ImportOutcome> {
  if (value === null) return refused('its value is null, which a config cannot hold here')
  if (RESERVED_KEYS.has(key)) return refused(`"${key}" is reserved (it names a route)`)
  try {
    // A dry run imports inside a transaction, which the refusal must leave usable (`guarded`).
    await guarded(db, () =>
      withTransaction(db, async (trx) => {
        await trx
          .insertInto('remote_configs')
          .values({ config_key: key, config_value: value, created_at: now, updated_at: now })
          .execute()
        await bumpChangeCounter(trx, 'remote-config')
      }),
    )
    return COPIED
  } catch (error) {
    if (!isUniqueViolation(error)) throw error
    const existing = await findConfig(db, key)
    return existing?.config_value === value ? EXISTS : refused('the key is already set here to another value (kept)')
  }
}

// ---- copy between games (features/games/copy.ts) --------------------------------------------

/** Every config value by key: what copying the remote config to another game compares. */
export async function snapshotRemoteConfig(db: Db): Promise<Record<string, string>> {
  const rows = await db.selectFrom('remote_configs').select(['config_key', 'config_value']).execute()
  return Object.fromEntries(rows.map((r) => [r.config_key, r.config_value]))
}

/** Writes the values of `put` and deletes the keys of `remove`, in one transaction with one counter bump. */
export async function replaceRemoteConfig(
  db: Db,
  change: { put: Record<string, string>; remove: readonly string[] },
  now: number,
): Promise<void> {
  await withTransaction(db, async (trx) => {
    await bumpChangeCounter(trx, 'remote-config')
    const entries = Object.entries(change.put)
    if (entries.length > 0) await writeConfigs(trx, entries, now)
    if (change.remove.length > 0) {
      await trx
        .deleteFrom('remote_configs')
        .where('config_key', 'in', [...change.remove])
        .execute()
    }
  })
}
