import type { Db } from '../../db/types.js'
import { nowAndAfterCommit } from '../../db/transaction.js'

/**
 * A notice between features: what other players see of a player (the name, the public profile) has
 * changed. The features that own those write it; the leaderboard's page cache listens, so a page
 * never shows an old name after the change on this instance.
 */
type Listener = () => void
const listeners = new Set<Listener>()

export function onPublicPlayerChange(listener: Listener): void {
  listeners.add(listener)
}

/** Call with the write's transaction (or the database, after the write). */
export function publicPlayerChanged(db: Db): void {
  nowAndAfterCommit(db, () => {
    for (const listener of listeners) listener()
  })
}
