// The §12 analytics answers (API.md), as the console reads them.
export type DailyMetric =
  | 'signups'
  | 'active'
  | 'sessions'
  | 'crashFreeRate'
  | 'crashes'
  | 'submits'
  | 'redemptions'
  | 'feedback'
  | 'emailsSent'
  | 'emailsFailed'

export interface DailyResponse {
  from: string
  to: string
  days: string[]
  series: Partial<Record<DailyMetric, Array<number | null>>>
}

export interface RetentionResponse {
  cohorts: Array<{ date: string; size: number; d1: number | null; d7: number | null; d30: number | null }>
}

export interface CountsResponse {
  players: number
  playersByKind: { anonymous: number; email: number; apple: number; google: number }
  bannedPlayers: number
  activeToday: number
  boards: number
  entries: number
  saves: number
  giftCodes: number
  openCrashGroups: number
  pendingReviews: number
  emailsQueued: number
  feedback: number
}

export interface HistogramResponse {
  boardKey: string
  period: string
  min: number | null
  max: number | null
  buckets: Array<{ from: number; to: number; count: number }>
}
