import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0002 from './0002_create_sessions.js'
import * as m0020 from './0020_create_cloud_saves.js'
import * as m0030 from './0030_create_content_versions.js'
import * as m0031 from './0031_create_remote_configs.js'
import * as m0032 from './0032_create_localizations.js'
import * as m0033 from './0033_create_news.js'

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
}
