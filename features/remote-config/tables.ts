import type { Selectable } from 'kysely'

/** A setting the game reads by key, changed by operators without a new build of the game. */
export interface RemoteConfigsTable {
  config_key: string
  config_value: string
  created_at: number
  updated_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    remote_configs: RemoteConfigsTable
  }
}

/** A row of remote_configs as read. */
export type RemoteConfig = Selectable<RemoteConfigsTable>
