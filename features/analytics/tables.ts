/**
 * Analytics (features/analytics): days are UTC days counted from the epoch (`Math.floor(ms / 86400000)`),
 * an integer that sorts, ranges and indexes better than a date string.
 */
/** One row per player per UTC day on which one of their app requests succeeded. */
export interface PlayerActivityTable {
  day: number
  user_id: string
}

/**
 * The daily rollups: one row per (metric, dimension, day). `dimension` is '' for the whole game, else
 * an app version (sessions, crashed sessions, crashes) or a board key (submits).
 */
export interface AnalyticsDailyTable {
  metric: string
  dimension: string
  day: number
  value: number
}

/** The past days whose rollups are built for good: the row is the claim, written in the build's transaction. */
export interface AnalyticsDaysTable {
  day: number
  built_at: number
}

// The tables join the one Database type (db/types.ts), so every query over them is typed.
declare module '../../db/types.js' {
  interface Database {
    player_activity: PlayerActivityTable
    analytics_daily: AnalyticsDailyTable
    analytics_days: AnalyticsDaysTable
  }
}
