// A player's data export (right of access and portability): one document, each part read through the
// service of the feature that owns it, so a feature's secrets stay decided where its tables are.
import type { Db } from '../../db/types.js'
import { sessionsOfUser } from '../security/session-store.js'
import { toIso } from '../core/clock.js'
import { notFound } from '../core/errors.js'
import type { UserExport } from '../../schemas/users.js'
import { exportAccount } from './service.js'
import { exportForUser as profileExport } from '../player-profile/service.js'
import { exportForUser as leaderboardExport } from '../leaderboard/service.js'
import { exportForUser as validatedExport } from '../validated-actions/service.js'
import { exportForUser as cloudSaveExport } from '../cloud-save/service.js'
import { exportForUser as giftCodesExport } from '../gift-codes/service.js'
import { exportForUser as emailsExport } from '../email-sending/service.js'
import { exportForUser as feedbackExport } from '../user-feedback/service.js'
import { exportForUser as logsExport } from '../user-logs/service.js'
import { exportForUser as crashExport } from '../crash-reporting/service.js'

export async function exportUser(db: Db, userId: string, now: number): Promise<UserExport> {
  const account = await exportAccount(db, userId)
  if (!account) throw notFound('USER_NOT_FOUND', 'User not found: check the id with GET /api/v1/admin/users?query=')
  const [sessions, profile, boards, validated, cloudSave, redemptions, emails, feedback, logs, crashes] =
    await Promise.all([
      sessionsOfUser(db, userId),
      profileExport(db, userId),
      leaderboardExport(db, userId),
      validatedExport(db, userId),
      cloudSaveExport(db, userId),
      giftCodesExport(db, userId),
      emailsExport(db, userId),
      feedbackExport(db, userId),
      logsExport(db, userId),
      crashExport(db, userId),
    ])
  return {
    exportedAt: toIso(now),
    account,
    sessions,
    profile: profile.profile,
    unlocks: profile.unlocks,
    leaderboardEntries: boards.entries,
    leaderboardBans: boards.bans,
    cloudSave,
    values: validated.values,
    valueHistory: validated.valueHistory,
    runs: validated.runs,
    giftCodeRedemptions: redemptions,
    emails,
    feedback,
    logs,
    crashSessions: crashes.sessions,
    crashReports: crashes.reports,
  }
}
