import type { Selectable } from 'kysely'

/** A feedback message sent from the game, by a player or anonymously, for operators to read. */
export interface UserFeedbackTable {
  id: string
  /** null: anonymous feedback. */
  user_id: string | null
  title: string
  message: string
  category: string
  email: string | null
  device_info: string | null
  created_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    user_feedback: UserFeedbackTable
  }
}

/** A row of user_feedback as read. */
export type UserFeedback = Selectable<UserFeedbackTable>
