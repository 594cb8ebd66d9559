import type { Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** One app run, registered by the crash-reporting SDKs (or by its first report): the base of the crash-free rate. */
export interface CrashSessionsTable {
  session_id: string
  app_version: string
  platform: string
  /** The userId as the client sent it (any string, "" when none). */
  user_id: string
  /** Set when user_id named an existing user: the row is erased with that user. */
  linked_user_id: string | null
  /** 1 once any report was filed under this session. */
  crashed: Flag
  created_at: number
  crashed_at: number | null
}

/** Reports with one fingerprint. Counters are kept by the database in the report's own upsert. */
export interface CrashGroupsTable {
  id: string
  fingerprint: string
  type: string
  /** The first report's message, shortened: the group's title. */
  message: string
  /** OPEN | RESOLVED | IGNORED | REGRESSED */
  status: string
  resolved_in_version: string | null
  /** `versionKey(resolved_in_version)`: compared with `<` in SQL to detect a regression. */
  resolved_version_key: string | null
  occurrences: number
  first_seen: number
  last_seen: number
  last_app_version: string
  updated_at: number
}

/** A crash group's occurrences per app version: which versions a crash hits, first and last seen. */
export interface CrashGroupVersionsTable {
  group_id: string
  app_version: string
  occurrences: number
  first_seen: number
  last_seen: number
}

/** The distinct users a group has hit: the key is the client's userId string. */
export interface CrashGroupUsersTable {
  group_id: string
  user_key: string
  linked_user_id: string | null
  first_seen: number
  last_seen: number
}

/** One report as filed, under its group and session: the stack trace, device, breadcrumbs and custom keys. */
export interface CrashReportsTable {
  id: string
  group_id: string
  session_id: string
  type: string
  message: string
  stack_trace: string
  fingerprint: string
  app_version: string
  sdk_version: string
  platform: string
  os: string
  device_model: string
  device_memory_mb: number | null
  /** The userId as the client sent it ("anonymous", "", a UUID...). */
  user_id: string
  /** Set when user_id named an existing user: the report is erased with that user. */
  linked_user_id: string | null
  /** JSON text: [{ timestamp, type, message }], timestamps as sent. */
  breadcrumbs: string
  /** JSON text: { key: string }. */
  custom_keys: string
  truncated: Flag
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    crash_sessions: CrashSessionsTable
    crash_groups: CrashGroupsTable
    crash_group_versions: CrashGroupVersionsTable
    crash_group_users: CrashGroupUsersTable
    crash_reports: CrashReportsTable
  }
}

/** A row of crash_groups as read. */
export type CrashGroup = Selectable<CrashGroupsTable>

/** A row of crash_reports as read. */
export type CrashReport = Selectable<CrashReportsTable>
