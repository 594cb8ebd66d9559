// Crash reporting: sessions and crash reports exactly as the SDKs send them. Ingestion
// never loses a report: every field but `type` may be missing or empty, over-long fields are shortened
// (and the answer says so), and grouping counters are kept by the database under any concurrency.
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { CrashExportSchema, CrashGroupEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

export const manifest: FeatureManifest = {
  name: 'crash-reporting',
  tag: 'Crash Reporting',
  adminRights: GAME_RIGHTS,
  tables: ['crash_sessions', 'crash_groups', 'crash_group_versions', 'crash_group_users', 'crash_reports'],
  migrations,
  counters: {
    reports: {
      name: 'outpost_crash_reports_total',
      help: 'Crash reports received, by type (CRASH, NON_FATAL, ANR)',
      label: { name: 'type', values: ['CRASH', 'NON_FATAL', 'ANR'] },
    },
  },
  events: [
    { type: 'crash.group_created', title: 'New crash', payload: CrashGroupEventSchema },
    { type: 'crash.group_regressed', title: 'Crash regressed', payload: CrashGroupEventSchema },
  ],
  playerExport: exportPart({
    schema: CrashExportSchema,
    read: async (db, userId) => {
      const { sessions, reports } = await exportForUser(db, userId)
      return { crashSessions: sessions, crashReports: reports }
    },
    after: 'user-logs',
  }),
}

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'metrics', 'events'],
)
