import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0002 from './0002_create_sessions.js'
import * as m0040 from './0040_add_user_credentials.js'
import * as m0041 from './0041_create_account_tokens.js'
import * as m0042 from './0042_create_login_failures.js'
import * as m0043 from './0043_create_email_templates.js'
import * as m0044 from './0044_seed_system_email_templates.js'
import * as m0045 from './0045_create_emails.js'

/**
 * The migrations, in order. Listed here rather than read from the folder so that the compiled
 * server needs no file-system scan and a missing file is a compile error, not a silent skip.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_users': m0001,
  '0002_create_sessions': m0002,
  '0040_add_user_credentials': m0040,
  '0041_create_account_tokens': m0041,
  '0042_create_login_failures': m0042,
  '0043_create_email_templates': m0043,
  '0044_seed_system_email_templates': m0044,
  '0045_create_emails': m0045,
}
