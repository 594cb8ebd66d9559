import type { Migration } from 'kysely'
import * as m0001 from './0001_create_users.js'
import * as m0002 from './0002_create_sessions.js'
import * as m0010 from './0010_create_cosmetics.js'
import * as m0011 from './0011_create_player_profiles.js'
import * as m0012 from './0012_create_player_unlocks.js'
import * as m0013 from './0013_create_leaderboards.js'
import * as m0014 from './0014_create_leaderboard_entries.js'
import * as m0015 from './0015_create_leaderboard_counts.js'
import * as m0016 from './0016_create_leaderboard_bans.js'
import * as m0020 from './0020_create_cloud_saves.js'
import * as m0030 from './0030_create_content_versions.js'
import * as m0031 from './0031_create_remote_configs.js'
import * as m0032 from './0032_create_localizations.js'
import * as m0033 from './0033_create_news.js'
import * as m0040 from './0040_add_user_credentials.js'
import * as m0041 from './0041_create_account_tokens.js'
import * as m0042 from './0042_create_login_failures.js'
import * as m0043 from './0043_create_email_templates.js'
import * as m0044 from './0044_seed_system_email_templates.js'
import * as m0045 from './0045_create_emails.js'
import * as m0046 from './0046_rekey_login_failures.js'
import * as m0050 from './0050_create_crash_sessions.js'
import * as m0051 from './0051_create_crash_groups.js'
import * as m0052 from './0052_create_crash_group_versions.js'
import * as m0053 from './0053_create_crash_group_users.js'
import * as m0054 from './0054_create_crash_reports.js'
import * as m0055 from './0055_create_user_feedback.js'
import * as m0056 from './0056_create_user_logs.js'
import * as m0060 from './0060_create_gift_codes.js'
import * as m0061 from './0061_create_gift_code_redemptions.js'
import * as m0070 from './0070_create_validated_rules.js'
import * as m0071 from './0071_create_validated_values.js'
import * as m0072 from './0072_create_validated_runs.js'
import * as m0073 from './0073_create_validated_evidence.js'
import * as m0074 from './0074_create_validated_submissions.js'
import * as m0075 from './0075_create_validated_players.js'
import * as m0076 from './0076_create_validated_balances.js'
import * as m0077 from './0077_create_validated_adjustments.js'
import * as m0080 from './0080_create_user_identities.js'
import * as m0081 from './0081_create_google_codes.js'
import * as m0083 from './0083_create_operators.js'
import * as m0084 from './0084_create_operator_sessions.js'
import * as m0085 from './0085_create_audit_log.js'
import * as m0090 from './0090_leaderboard_counts_without_rowid.js'
import * as m0091 from './0091_trim_user_indexes.js'
import * as m0092 from './0092_leaderboard_rank_index_covers_score.js'
import * as m0093 from './0093_operator_names_exact.js'
import * as m0095 from './0095_create_job_runs.js'
import * as m0096 from './0096_drop_users_login_locked_until.js'
import * as m0100 from './0100_create_player_activity.js'
import * as m0101 from './0101_create_analytics_daily.js'
import * as m0102 from './0102_create_analytics_days.js'
import * as m0103 from './0103_index_analytics_sources.js'
import * as m0104 from './0104_index_users_kind.js'
import * as m0110 from './0110_create_webhook_endpoints.js'
import * as m0111 from './0111_create_webhook_deliveries.js'
import * as m0112 from './0112_create_webhook_attempts.js'
import * as m0120 from './0120_create_ban_generation.js'
import * as m0121 from './0121_drop_ban_generation.js'
import * as m0124 from './0124_add_webhook_health.js'
import * as m0128 from './0128_index_analytics_daily_day.js'
import * as m0130 from './0130_login_attempts_in_flight.js'

/**
 * The migrations, in order. Listed here rather than read from the folder so that the compiled
 * server needs no file-system scan and a missing file is a compile error, not a silent skip.
 */
export const migrations: Record<string, Migration> = {
  '0001_create_users': m0001,
  '0002_create_sessions': m0002,
  '0010_create_cosmetics': m0010,
  '0011_create_player_profiles': m0011,
  '0012_create_player_unlocks': m0012,
  '0013_create_leaderboards': m0013,
  '0014_create_leaderboard_entries': m0014,
  '0015_create_leaderboard_counts': m0015,
  '0016_create_leaderboard_bans': m0016,
  '0020_create_cloud_saves': m0020,
  '0030_create_content_versions': m0030,
  '0031_create_remote_configs': m0031,
  '0032_create_localizations': m0032,
  '0033_create_news': m0033,
  '0040_add_user_credentials': m0040,
  '0041_create_account_tokens': m0041,
  '0042_create_login_failures': m0042,
  '0043_create_email_templates': m0043,
  '0044_seed_system_email_templates': m0044,
  '0045_create_emails': m0045,
  '0046_rekey_login_failures': m0046,
  '0050_create_crash_sessions': m0050,
  '0051_create_crash_groups': m0051,
  '0052_create_crash_group_versions': m0052,
  '0053_create_crash_group_users': m0053,
  '0054_create_crash_reports': m0054,
  '0055_create_user_feedback': m0055,
  '0056_create_user_logs': m0056,
  '0060_create_gift_codes': m0060,
  '0061_create_gift_code_redemptions': m0061,
  '0070_create_validated_rules': m0070,
  '0071_create_validated_values': m0071,
  '0072_create_validated_runs': m0072,
  '0073_create_validated_evidence': m0073,
  '0074_create_validated_submissions': m0074,
  '0075_create_validated_players': m0075,
  '0076_create_validated_balances': m0076,
  '0077_create_validated_adjustments': m0077,
  '0080_create_user_identities': m0080,
  '0081_create_google_codes': m0081,
  '0083_create_operators': m0083,
  '0084_create_operator_sessions': m0084,
  '0085_create_audit_log': m0085,
  '0090_leaderboard_counts_without_rowid': m0090,
  '0091_trim_user_indexes': m0091,
  '0092_leaderboard_rank_index_covers_score': m0092,
  '0093_operator_names_exact': m0093,
  '0095_create_job_runs': m0095,
  '0096_drop_users_login_locked_until': m0096,
  '0100_create_player_activity': m0100,
  '0101_create_analytics_daily': m0101,
  '0102_create_analytics_days': m0102,
  '0103_index_analytics_sources': m0103,
  '0104_index_users_kind': m0104,
  '0110_create_webhook_endpoints': m0110,
  '0111_create_webhook_deliveries': m0111,
  '0112_create_webhook_attempts': m0112,
  '0120_create_ban_generation': m0120,
  '0121_drop_ban_generation': m0121,
  '0124_add_webhook_health': m0124,
  '0128_index_analytics_daily_day': m0128,
  '0130_login_attempts_in_flight': m0130,
}
