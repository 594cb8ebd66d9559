import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0040 from './0040_add_user_credentials.js'
import * as m0080 from './0080_create_user_identities.js'
import * as m0091 from './0091_trim_user_indexes.js'
import * as m0096 from './0096_drop_users_login_locked_until.js'
import * as m0104 from './0104_index_users_kind.js'
import * as m0151 from './0151_users_lock_version.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_users': m0001,
  '0040_add_user_credentials': m0040,
  '0080_create_user_identities': m0080,
  '0091_trim_user_indexes': m0091,
  '0096_drop_users_login_locked_until': m0096,
  '0104_index_users_kind': m0104,
  '0151_users_lock_version': m0151,
}
