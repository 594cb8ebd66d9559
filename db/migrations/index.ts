import type { Migration } from 'kysely'
import * as m0002 from './0002_create_sessions.js'
import * as m0030 from './0030_create_content_versions.js'
import * as m0042 from './0042_create_login_failures.js'
import * as m0046 from './0046_rekey_login_failures.js'
import * as m0085 from './0085_create_audit_log.js'
import * as m0095 from './0095_create_job_runs.js'
import * as m0120 from './0120_create_ban_generation.js'
import * as m0121 from './0121_drop_ban_generation.js'
import * as m0130 from './0130_login_attempts_in_flight.js'
import * as m0140 from './0140_create_games.js'
import * as m0150 from './0150_login_locks_lock_version.js'
import * as m0160 from './0160_create_db_heartbeat.js'

/**
 * The migrations of the platform's own tables (sessions, change counters, sign-in lockout, audit log,
 * job claims, the games and their keys, the read hosts' heartbeat). Each feature lists its own (its manifest's `migrations`); app.ts gathers them all.
 * Listed here rather than read from the folder so that the compiled server needs no file-system scan
 * and a missing file is a compile error, not a silent skip.
 */
export const platformMigrations: Record<string, Migration> = {
  '0002_create_sessions': m0002,
  '0030_create_content_versions': m0030,
  '0042_create_login_failures': m0042,
  '0046_rekey_login_failures': m0046,
  '0085_create_audit_log': m0085,
  '0095_create_job_runs': m0095,
  '0120_create_ban_generation': m0120,
  '0121_drop_ban_generation': m0121,
  '0130_login_attempts_in_flight': m0130,
  '0140_create_games': m0140,
  '0150_login_locks_lock_version': m0150,
  '0160_create_db_heartbeat': m0160,
}
