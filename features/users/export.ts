// A player's data export (right of access and portability): one document. Each feature declares the
// fields it owns and how they are read (its manifest's `playerExport`); this file puts them together.
import type { TObject } from '@sinclair/typebox'
import type { Db } from '../../db/types.js'
import { sessionsOfUser } from '../../platform/security/session-store.js'
import { toIso } from '../../platform/core/clock.js'
import { notFound } from '../../platform/core/errors.js'
import { inListOrder, type ExportPart, type FeatureManifest } from '../../platform/core/features.js'
import { userExportSchema, type UserExport } from './schemas.js'
import { exportAccount } from './service.js'

/** The export of an app's features: its schema (the answer's and the document's) and its parts. */
export interface PlayerExport {
  schema: TObject
  parts: readonly ExportPart[]
}

/** Built once, when the users feature registers, from every feature's manifest. */
export function playerExport(features: readonly FeatureManifest[]): PlayerExport {
  const named = features.flatMap((f) => (f.playerExport ? [{ ...f.playerExport, name: f.name }] : []))
  const parts = inListOrder(named, (part) => part.name)
  return { schema: userExportSchema(parts.map((part) => part.schema)), parts }
}

/** A player's data export (GDPR): the account, its sessions and every feature's part, in the export's order. */
export async function exportUser(db: Db, exported: PlayerExport, userId: string, now: number): Promise<UserExport> {
  const account = await exportAccount(db, userId)
  if (!account) throw notFound('USER_NOT_FOUND', 'User not found: check the id with GET /api/v1/admin/users?query=')
  const [sessions, parts] = await Promise.all([
    sessionsOfUser(db, userId),
    Promise.all(exported.parts.map((part) => part.read(db, userId))),
  ])
  return Object.assign({ exportedAt: toIso(now), account, sessions }, ...parts) as UserExport
}
