/**
 * How one row brought over from another server (`npm run import:php`) fared in the feature that owns
 * it: written now, already there from an earlier run (the owner's unique key said so), or refused
 * with a reason the operator can act on.
 */
export type ImportOutcome = { status: 'copied' } | { status: 'exists' } | { status: 'refused'; reason: string }

export const COPIED: ImportOutcome = { status: 'copied' }
export const EXISTS: ImportOutcome = { status: 'exists' }
export const refused = (reason: string): ImportOutcome => ({ status: 'refused', reason })
