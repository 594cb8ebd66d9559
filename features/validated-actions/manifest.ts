import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { RunFlaggedEventSchema, ValidatedExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Validated actions' tables, run counter, flagged-run event and export part, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'validated-actions',
  tag: 'Validated Actions',
  adminRights: GAME_RIGHTS,
  tables: [
    'validated_rules',
    'validated_values',
    'validated_runs',
    'validated_evidence',
    'validated_submissions',
    'validated_players',
    'validated_balances',
    'validated_adjustments',
  ],
  migrations,
  counters: {
    runs: {
      name: 'outpost_validated_runs_total',
      help: 'Validated runs submitted, by outcome (accepted, sus: accepted and flagged, rejected)',
      label: { name: 'outcome', values: ['accepted', 'sus', 'rejected'] },
    },
  },
  events: [{ type: 'run.flagged', title: 'Run flagged', payload: RunFlaggedEventSchema, after: 'feedback.submitted' }],
  playerExport: exportPart({
    schema: ValidatedExportSchema,
    read: async (db, userId) => {
      const { values, valueHistory, runs } = await exportForUser(db, userId)
      return { values, valueHistory, runs }
    },
  }),
}
