import type { NamedSchemas } from '../../platform/openapi/index.js'
import { AdminFeedbackListSchema, AdminFeedbackSchema } from './schemas.js'

export const components: NamedSchemas = {
  Feedback: AdminFeedbackSchema,
  FeedbackPage: AdminFeedbackListSchema,
}
