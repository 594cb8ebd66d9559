import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { FeedbackExportSchema, FeedbackSubmittedEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** User feedback's table, submitted event and export part, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'user-feedback',
  tag: 'User Feedback',
  adminRights: GAME_RIGHTS,
  tables: ['user_feedback'],
  events: [{ type: 'feedback.submitted', title: 'Feedback submitted', payload: FeedbackSubmittedEventSchema }],
  playerExport: exportPart({
    schema: FeedbackExportSchema,
    read: async (db, userId) => ({ feedback: await exportForUser(db, userId) }),
  }),
  migrations,
}
