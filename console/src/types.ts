// The admin API's answers, as the server's schemas define them: type-only imports, so a change of a
// shape that the console reads fails `npm run typecheck`, and no server code reaches the bundle.
import type { Static, TObject } from '@sinclair/typebox'
import type { HistogramResponseSchema } from '../../features/analytics/schemas'
import type { UserExportHeadSchema } from '../../features/users/schemas'
import type { ProfileExportSchema } from '../../features/player-profile/schemas'
import type { LeaderboardExportSchema } from '../../features/leaderboard/schemas'
import type { CloudSaveExportSchema } from '../../features/cloud-save/schemas'
import type { ValidatedExportSchema } from '../../features/validated-actions/schemas'
import type { GiftCodeExportSchema } from '../../features/gift-codes/schemas'
import type { EmailExportSchema } from '../../features/email-sending/schemas'
import type { FeedbackExportSchema } from '../../features/user-feedback/schemas'
import type { LogsExportSchema } from '../../features/user-logs/schemas'
import type { CrashExportSchema } from '../../features/crash-reporting/schemas'

export type { AdminUser } from '../../features/users/schemas'
/** A player's export as the player page reads it: the users' head and the parts the page shows. */
export type UserExport = Static<
  TObject<
    typeof UserExportHeadSchema &
      typeof ProfileExportSchema &
      typeof LeaderboardExportSchema &
      typeof CloudSaveExportSchema &
      typeof ValidatedExportSchema &
      typeof GiftCodeExportSchema &
      typeof EmailExportSchema &
      typeof FeedbackExportSchema &
      typeof LogsExportSchema &
      typeof CrashExportSchema
  >
>
export type { AdminBoard, AdminEntry } from '../../features/leaderboard/schemas'
export type {
  AdminRun,
  AdminRunDetail,
  PlayerState,
  Rules,
  ValueDefinition,
} from '../../features/validated-actions/schemas'
export type { AdminGiftCode, GeneratedGiftCodes, Redemption } from '../../features/gift-codes/schemas'
export type {
  CrashGroupDetail,
  CrashGroupUser,
  CrashGroupView,
  CrashOccurrence,
  CrashStats,
} from '../../features/crash-reporting/schemas'
export type { AdminEmail, EmailTemplate, PreviewResponse } from '../../features/email-sending/schemas'
export type { AdminCosmetic, AdminUnlocks } from '../../features/player-profile/schemas'
export type { AdminConfig } from '../../features/remote-config/schemas'
export type { TranslationGrid } from '../../features/localization/schemas'
export type { AdminNews } from '../../features/news/schemas'
export type { AdminFeedback } from '../../features/user-feedback/schemas'
export type { AdminUserLog } from '../../features/user-logs/schemas'
export type { AuditEntry, OperatorBody, Session } from '../../features/operators/schemas'
export type { Setting } from '../../features/settings/schemas'
export type { Webhook, WebhookDelivery, WebhookEventType, WebhookFormat } from '../../features/webhooks/schemas'
export type { Role } from '../../platform/security/roles'
export type { CountsResponse, DailyMetric, DailyResponse, RetentionResponse } from '../../features/analytics/schemas'
/** The schema module names no type for the histogram's answer: derived from its schema. */
export type HistogramResponse = Static<typeof HistogramResponseSchema>

/** One page of an admin list: every list answer has this shape. */
export interface Page<T> {
  items: T[]
  nextCursor: string | null
}
