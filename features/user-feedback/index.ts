// User feedback: bug reports, feature requests and general notes from players. Answers
// the JSON string "ok" (compat). User-scoped when a userId (or a bearer) comes with it, so nobody files
// feedback as someone else; anonymous when neither does (the SDKs drop userId when nobody is signed in).
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { FeedbackExportSchema, FeedbackSubmittedEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events'],
)
