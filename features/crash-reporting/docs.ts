import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import {
  CrashGroupDetailSchema,
  CrashGroupListSchema,
  CrashGroupSchema,
  CrashGroupUserListSchema,
  CrashOccurrenceSchema,
} from './schemas.js'

export const LENIENT =
  'Ingestion is lenient, so no crash is lost: `userId` is any string ≤ 128 (`"anonymous"`, `""` and non-UUIDs are kept ' +
  'as given; a known user\'s UUID links it to the user), and missing, `null` or `""` fields are stored as `""`. A NUL ' +
  'character (U+0000) in any text or key is taken out (every other route refuses it with 400 VALIDATION_ERROR). 413 ' +
  'for a body over 256 KiB; 415 for a body that is not JSON.'
export const group = {
  id: EX.groupId,
  fingerprint: 'NullReferenceException@PlayerController.Update',
  type: 'CRASH',
  message: 'Object reference not set to an instance of an object',
  status: 'OPEN',
  resolvedInVersion: null,
  occurrences: 17,
  affectedUsers: 9,
  affectedVersions: ['1.4.2', '1.4.1'],
  firstSeen: EX.earlier,
  lastSeen: EX.now,
  lastAppVersion: '1.4.2',
}

export const components: NamedSchemas = {
  CrashGroup: CrashGroupSchema,
  CrashGroupPage: CrashGroupListSchema,
  CrashGroupDetail: CrashGroupDetailSchema,
  CrashOccurrence: CrashOccurrenceSchema,
  CrashGroupUserPage: CrashGroupUserListSchema,
}
