import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0002 from './0002_create_sessions.js'
import * as m0020 from './0020_create_cloud_saves.js'

/**
 * The migrations, in order. Listed here rather than read from the folder so that the compiled
 * server needs no file-system scan and a missing file is a compile error, not a silent skip.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_users': m0001,
  '0002_create_sessions': m0002,
  '0020_create_cloud_saves': m0020,
}
