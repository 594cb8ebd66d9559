import type { Migration } from 'kysely'
import * as m0050 from './0050_create_crash_sessions.js'
import * as m0051 from './0051_create_crash_groups.js'
import * as m0052 from './0052_create_crash_group_versions.js'
import * as m0053 from './0053_create_crash_group_users.js'
import * as m0054 from './0054_create_crash_reports.js'
import * as m0103 from './0103_index_analytics_sources.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0050_create_crash_sessions': m0050,
  '0051_create_crash_groups': m0051,
  '0052_create_crash_group_versions': m0052,
  '0053_create_crash_group_users': m0053,
  '0054_create_crash_reports': m0054,
  '0103_index_analytics_sources': m0103,
}
