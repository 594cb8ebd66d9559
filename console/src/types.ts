// The admin API's answers, as the server's schemas define them: type-only imports, so a change of a
// shape that the console reads fails `npm run typecheck`, and no server code reaches the bundle.
import type { Static } from '@sinclair/typebox'
import type { HistogramResponseSchema } from '../../schemas/analytics'

export type { AdminUser, UserExport } from '../../schemas/users'
export type { AdminBoard, AdminEntry } from '../../schemas/leaderboard'
export type { AdminRun, AdminRunDetail, PlayerState, Rules, ValueDefinition } from '../../schemas/validated-actions'
export type { AdminGiftCode, GeneratedGiftCodes, Redemption } from '../../schemas/gift-codes'
export type {
  CrashGroupDetail,
  CrashGroupUser,
  CrashGroupView,
  CrashOccurrence,
  CrashStats,
} from '../../schemas/crash-reporting'
export type { AdminEmail, EmailTemplate, PreviewResponse } from '../../schemas/email-sending'
export type { AdminCosmetic, AdminUnlocks } from '../../schemas/player-profile'
export type { AdminConfig } from '../../schemas/remote-config'
export type { TranslationGrid } from '../../schemas/localization'
export type { AdminNews } from '../../schemas/news'
export type { AdminFeedback } from '../../schemas/user-feedback'
export type { AdminUserLog } from '../../schemas/user-logs'
export type { AuditEntry, OperatorBody, Session } from '../../schemas/operators'
export type { Setting } from '../../schemas/settings'
export type { Webhook, WebhookDelivery, WebhookEventType, WebhookFormat } from '../../schemas/webhooks'
export type { Role } from '../../plugins/security/roles'
export type { CountsResponse, DailyMetric, DailyResponse, RetentionResponse } from '../../schemas/analytics'
/** The schema module names no type for the histogram's answer: derived from its schema. */
export type HistogramResponse = Static<typeof HistogramResponseSchema>

/** One page of an admin list: every list answer has this shape. */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}
