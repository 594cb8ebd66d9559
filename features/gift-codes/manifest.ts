import { exportPart, type FeatureManifest } from '../../platform/core/features.js'
import { GAME_RIGHTS } from '../../platform/security/roles.js'
import { exportForUser } from './service.js'
import { GiftCodeExhaustedEventSchema, GiftCodeExportSchema } from './schemas.js'
import { migrations } from './migrations/index.js'

/** Gift codes' tables, used-up event and export part, for the platform and its route files. */
export const manifest: FeatureManifest = {
  name: 'gift-codes',
  tag: 'Gift Codes',
  adminRights: GAME_RIGHTS,
  tables: ['gift_codes', 'gift_code_redemptions'],
  events: [
    {
      type: 'gift_code.exhausted',
      title: 'Gift code used up',
      payload: GiftCodeExhaustedEventSchema,
      after: 'run.flagged',
    },
  ],
  playerExport: exportPart({
    schema: GiftCodeExportSchema,
    read: async (db, userId) => ({ giftCodeRedemptions: await exportForUser(db, userId) }),
  }),
  migrations,
}
