// Validated actions: server-checked runs. A run starts with a single-use ticket and a seed;
// its submit passes the operator's rules before the score is written and the player's values change.
// A ticket is accepted at most once and its effects happen at most once, under any concurrency.
import { adminRoutes, defineFeature, exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { ADMIN_PREFIX, APP_PREFIX } from '../../platform/core/paths.js'
import { exportForUser } from './service.js'
import routes from './routes.js'
import admin from './admin.js'
import { components } from './docs.js'
import { RunFlaggedEventSchema, ValidatedExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

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

export default defineFeature(
  manifest,
  async (app) => {
    app.openapi.describe({}, components)
    await app.register(routes, { prefix: APP_PREFIX })
    await app.register(adminRoutes(manifest, admin), { prefix: ADMIN_PREFIX })
  },
  ['db', 'clock', 'sessions', 'events', 'metrics'],
)
