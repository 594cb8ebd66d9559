import type { Selectable } from 'kysely'
import type { Flag } from '../../db/types.js'

/** A code players redeem for its gift data and the cosmetics it grants, within its window and redemption limit. */
export interface GiftCodesTable {
  id: string
  /** Upper-case, [A-Z0-9-]{4,32}: players' input is trimmed and upper-cased before any lookup. */
  code: string
  gift_data: string
  /** JSON array of cosmetic ids unlocked on redemption. */
  grants: string
  max_redemptions: number
  /** Successful redemptions ever made; never lowered (not even when a redeeming user is deleted). */
  redemption_count: number
  starts_at: number | null
  expires_at: number | null
  revoked: Flag
  revoked_at: number | null
  created_at: number
  updated_at: number
}

/** A player's redemption of a code (one per player and code), with the cosmetics it newly unlocked. */
export interface GiftCodeRedemptionsTable {
  gift_code_id: string
  user_id: string
  /** JSON array of the cosmetic ids this redemption newly unlocked. */
  granted_unlocks: string
  redeemed_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    gift_codes: GiftCodesTable
    gift_code_redemptions: GiftCodeRedemptionsTable
  }
}

/** A row of gift_codes as read. */
export type GiftCode = Selectable<GiftCodesTable>
