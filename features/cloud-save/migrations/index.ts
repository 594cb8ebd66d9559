import type { Migration } from 'kysely'
import * as m0020 from './0020_create_cloud_saves.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0020_create_cloud_saves': m0020,
}
