import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { CrashExportSchema, CrashGroupEventSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Crash reporting's tables, report counter, crash events and export part, for the platform and its route files. */
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
