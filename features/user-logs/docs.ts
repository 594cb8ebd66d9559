import type { NamedSchemas } from '../../platform/openapi/index.js'
import { AdminUserLogListSchema, AdminUserLogSchema } from './schemas.js'

export const components: NamedSchemas = {
  UserLog: AdminUserLogSchema,
  UserLogPage: AdminUserLogListSchema,
}
