import type { Migration } from 'kysely'
import * as m0043 from './0043_create_email_templates.js'
import * as m0044 from './0044_seed_system_email_templates.js'
import * as m0045 from './0045_create_emails.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0043_create_email_templates': m0043,
  '0044_seed_system_email_templates': m0044,
  '0045_create_emails': m0045,
}
