import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0002 from './0002_create_sessions.js'
import * as m0020 from './0020_create_cloud_saves.js'
import * as m0030 from './0030_create_content_versions.js'
import * as m0031 from './0031_create_remote_configs.js'
import * as m0032 from './0032_create_localizations.js'
import * as m0033 from './0033_create_news.js'
import * as m0050 from './0050_create_crash_sessions.js'
import * as m0051 from './0051_create_crash_groups.js'
import * as m0052 from './0052_create_crash_group_versions.js'
import * as m0053 from './0053_create_crash_group_users.js'
import * as m0054 from './0054_create_crash_reports.js'
import * as m0055 from './0055_create_user_feedback.js'
import * as m0056 from './0056_create_user_logs.js'

/**
 * The migrations, in order. Listed here rather than read from the folder so that the compiled
 * server needs no file-system scan and a missing file is a compile error, not a silent skip.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_users': m0001,
  '0002_create_sessions': m0002,
  '0020_create_cloud_saves': m0020,
  '0030_create_content_versions': m0030,
  '0031_create_remote_configs': m0031,
  '0032_create_localizations': m0032,
  '0033_create_news': m0033,
  '0050_create_crash_sessions': m0050,
  '0051_create_crash_groups': m0051,
  '0052_create_crash_group_versions': m0052,
  '0053_create_crash_group_users': m0053,
  '0054_create_crash_reports': m0054,
  '0055_create_user_feedback': m0055,
  '0056_create_user_logs': m0056,
}
