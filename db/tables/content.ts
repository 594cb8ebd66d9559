/** A change counter per cached content feature (platform/content/content-cache.ts). */
export interface ContentVersionsTable {
  feature: string
  version: number
}

export interface RemoteConfigsTable {
  config_key: string
  config_value: string
  created_at: number
  updated_at: number
}

export interface LocalizationsTable {
  /** Canonical BCP 47 tag, e.g. `pt-BR`. */
  language: string
  localization_key: string
  value: string
  updated_at: number
}

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
