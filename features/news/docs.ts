import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
import { AdminNewsListSchema, AdminNewsSchema, NewsItemSchema } from './schemas.js'

/** A released news item, as the examples of both surfaces show it. */
export const NEWS_EXAMPLE = {
  id: EX.newsId,
  title: 'Season 3 starts',
  message: 'New boards, new cosmetics.',
  releaseDate: EX.now,
  languageCode: 'en',
}
/** The same item as the operator reads it. */
export const STORED_NEWS_EXAMPLE = { ...NEWS_EXAMPLE, scheduled: false, createdAt: EX.earlier, updatedAt: EX.now }

export const components: NamedSchemas = {
  NewsItem: NewsItemSchema,
  AdminNewsItem: AdminNewsSchema,
  AdminNewsPage: AdminNewsListSchema,
}
