// Promoting content from one game to another (contract §14, "Promote between games"): each part is
// read and written through its owner's service, the difference answered, and, unless a dry run, the
// target made equal to the source in one transaction on the target's database.
import type { Db } from '../../db/types.js'
import { withTransaction } from '../../db/transaction.js'
import type { EventSender } from '../../platform/core/events.js'
import { replaceRemoteConfig, snapshotRemoteConfig } from '../remote-config/service.js'
import { replaceLocalization, snapshotLocalization } from '../localization/service.js'
import { replaceNews, snapshotNews, type NewsCopy } from '../news/service.js'
import { replaceCosmetics, snapshotCosmetics, type CosmeticCopy } from '../player-profile/service.js'
import { replaceBoards, snapshotBoards, type BoardCopy } from '../leaderboard/service.js'
import { replaceValidation, snapshotValidation } from '../validated-actions/service.js'
import { replaceEmailTemplates, snapshotEmailTemplates, type TemplateCopy } from '../email-sending/service.js'
import { COPY_PARTS, type CopyPart, type CopyResult, type PartDiff } from './copy-schemas.js'

type Snapshot = Record<string, unknown>
/** What one part's write is handed: the entries to write (added and changed) and the keys to remove. */
interface Change {
  put: Record<string, unknown>
  remove: string[]
}

/** How a part is read and written, through its owner's service. */
interface PartIo {
  read(db: Db): Promise<Snapshot>
  write(db: Db, events: EventSender, change: Change, now: number): Promise<void>
}

/**
 * The parts, in the order they are applied (the boards before the rules that name them). A board the
 * source lacks is answered under `removed` and kept in the target with its entries: deleting a board
 * deletes its scores, which a copy of definitions never does.
 */
const PARTS: Record<CopyPart, PartIo> = {
  remoteConfig: {
    read: snapshotRemoteConfig,
    write: (db, _events, change, now) =>
      replaceRemoteConfig(db, change as { put: Record<string, string>; remove: string[] }, now),
  },
  localization: {
    read: snapshotLocalization,
    write: (db, _events, change, now) =>
      replaceLocalization(db, change as { put: Record<string, string>; remove: string[] }, now),
  },
  news: {
    read: snapshotNews,
    write: (db, _events, change, now) =>
      replaceNews(db, change as { put: Record<string, NewsCopy>; remove: string[] }, now),
  },
  cosmetics: {
    read: snapshotCosmetics,
    write: (db, events, change, now) =>
      replaceCosmetics(db, events, change as { put: Record<string, CosmeticCopy>; remove: string[] }, now),
  },
  leaderboards: {
    read: snapshotBoards,
    write: (db, events, change, now) => replaceBoards(db, events, change.put as Record<string, BoardCopy>, now),
  },
  validatedActions: {
    read: snapshotValidation,
    write: (db, _events, change, now) => replaceValidation(db, change, now),
  },
  emailTemplates: {
    read: snapshotEmailTemplates,
    write: (db, _events, change, now) =>
      replaceEmailTemplates(db, change as { put: Record<string, TemplateCopy>; remove: string[] }, now),
  },
}

/** A value as JSON with its keys sorted, so that two equal values compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  )
}

/** The difference that makes `target` equal to `source`, each list in key order. */
export function difference(source: Snapshot, target: Snapshot): PartDiff {
  const keys = (s: Snapshot) => Object.keys(s).sort()
  return {
    added: keys(source)
      .filter((key) => !Object.hasOwn(target, key))
      .map((key) => ({ key, value: source[key] })),
    changed: keys(source)
      .filter((key) => Object.hasOwn(target, key) && canonical(source[key]) !== canonical(target[key]))
      .map((key) => ({ key, from: target[key], to: source[key] })),
    removed: keys(target)
      .filter((key) => !Object.hasOwn(source, key))
      .map((key) => ({ key, value: target[key] })),
  }
}

/** What a copy is told: the two games' databases, their ids, the parts and whether to write. */
export interface CopyRequest {
  source: { id: string; db: Db }
  target: { id: string; db: Db }
  parts: readonly CopyPart[]
  dryRun: boolean
  events: EventSender
  now: number
}

/**
 * Reads the source's parts, then, in one transaction on the target's database, reads the target's,
 * works out each part's difference and (unless a dry run) writes it: a failure in any part leaves the
 * target as it was. Answers the differences, with the values.
 */
export async function copyBetweenGames(request: CopyRequest): Promise<CopyResult> {
  const parts = COPY_PARTS.filter((part) => request.parts.includes(part))
  const source = new Map<CopyPart, Snapshot>()
  for (const part of parts) source.set(part, await PARTS[part].read(request.source.db))
  const run = async (db: Db) => {
    const answer: CopyResult['parts'] = {}
    for (const part of parts) {
      const diff = difference(source.get(part)!, await PARTS[part].read(db))
      answer[part] = diff
      if (request.dryRun || diff.added.length + diff.changed.length + diff.removed.length === 0) continue
      const put = Object.fromEntries([
        ...diff.added.map((a) => [a.key, a.value] as const),
        ...diff.changed.map((c) => [c.key, c.to] as const),
      ])
      await PARTS[part].write(db, request.events, { put, remove: diff.removed.map((r) => r.key) }, request.now)
    }
    return answer
  }
  const answer = request.dryRun ? await run(request.target.db) : await withTransaction(request.target.db, run)
  return { source: request.source.id, target: request.target.id, dryRun: request.dryRun, parts: answer }
}
