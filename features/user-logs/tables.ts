import type { Selectable } from 'kysely'

/** A log line a player's client sent (INFO, WARN or ERROR), kept for support. */
export interface UserLogsTable {
  id: string
  user_id: string
  message: string
  /** INFO | WARN | ERROR */
  type: string
  error_code: string | null
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    user_logs: UserLogsTable
  }
}

/** A row of user_logs as read. */
export type UserLog = Selectable<UserLogsTable>
