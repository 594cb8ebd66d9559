import type { Migration } from 'kysely'
import * as m0033 from './0033_create_news.js'

/**
 * The migrations of the tables this feature owns, by the names the database has recorded them under:
 * the manifest hands them to the app, which runs them in name order with every other feature's.
 */
export const migrations: Record<string, Migration> = {
  '0033_create_news': m0033,
}
