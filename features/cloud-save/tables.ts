import type { Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** One cloud save per user: the bytes as sent, and whether they came as text or binary. */
export interface CloudSavesTable {
  user_id: string
  data: Buffer
  /** 1: saved as raw bytes (octet-stream), answered as base64 through a JSON load; 0: UTF-8 text. */
  is_binary: Flag
  size_bytes: number
  /** 1 with the first save, one more with each save after it. */
  version: number
  created_at: number
  updated_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    cloud_saves: CloudSavesTable
  }
}

/** A row of cloud_saves as read. */
export type CloudSave = Selectable<CloudSavesTable>
