import type { Selectable } from 'kysely'

/** A news item in one language, shown to players from its release date. */
export interface NewsTable {
  id: string
  title: string
  message: string
  language_code: string
  /** Hidden from players until this time (a scheduled item). */
  release_date: number
  created_at: number
  updated_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    news: NewsTable
  }
}

/** A row of news as read. */
export type News = Selectable<NewsTable>
