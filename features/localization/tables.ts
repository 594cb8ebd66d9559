import type { Selectable } from 'kysely'

/** One translated string: a key's value in one language. */
export interface LocalizationsTable {
  /** Canonical BCP 47 tag, e.g. `pt-BR`. */
  language: string
  localization_key: string
  value: string
  updated_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    localizations: LocalizationsTable
  }
}

/** A row of localizations as read. */
export type Localization = Selectable<LocalizationsTable>
