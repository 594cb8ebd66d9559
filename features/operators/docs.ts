import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AuditEntrySchema, AuditListSchema, OperatorListSchema, OperatorSchema, SessionSchema } from './schemas.js'

export const OWNER_ONLY = 'Owners only (and the X-Admin-Key); other roles get 403 FORBIDDEN.'

export const session = { username: 'ada', role: 'owner', roles: null, expiresAt: EX.later }
export const operator = {
  username: 'ada',
  role: 'owner',
  roles: null,
  totpEnabled: true,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
export const grace = {
  ...operator,
  username: 'grace',
  role: 'moderator',
  roles: { default: 'viewer', 'space-miner': 'moderator' },
  totpEnabled: false,
}
export const entry = {
  id: 1042,
  at: EX.now,
  actor: 'ada',
  actorVerified: true,
  role: 'owner',
  address: '203.0.113.7',
  requestId: '9f1c2d34-5b6a-4e7f-8a9b-0c1d2e3f4a5b',
  action: 'PUT /leaderboards/:boardKey',
  status: 200,
  target: { boardKey: 'speedrun' },
  changes: { name: 'Speedrun', sortOrder: 'asc' },
  game: 'default',
}

export const components: NamedSchemas = {
  OperatorSession: SessionSchema,
  Operator: OperatorSchema,
  OperatorList: OperatorListSchema,
  AuditEntry: AuditEntrySchema,
  AuditPage: AuditListSchema,
}
