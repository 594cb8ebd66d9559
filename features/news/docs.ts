import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import { AdminNewsListSchema, AdminNewsSchema, NewsItemSchema } from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const ADMIN = `${ADMIN_PREFIX}/news`
const item = {
  id: EX.newsId,
  title: 'Season 3 starts',
  message: 'New boards, new cosmetics.',
  releaseDate: EX.now,
  languageCode: 'en',
}
const stored = { ...item, scheduled: false, createdAt: EX.earlier, updatedAt: EX.now }

export const components: NamedSchemas = {
  NewsItem: NewsItemSchema,
  AdminNewsItem: AdminNewsSchema,
  AdminNewsPage: AdminNewsListSchema,
}

export const docs: OperationDocs = {
  [`GET ${APP_PREFIX}/news`]: {
    description:
      'Released news, newest first, as a bare JSON array (compat): only items whose release date has passed. `limit` ' +
      '0–100 (default 20; 0 answers `[]`; an integer out of range is clamped, a non-integer is 400); `languageCode` ' +
      'filters (matched case-insensitively; absent or `""`: all languages).',
    parameters: { limit: 5, languageCode: 'en' },
    response: [item],
  },
  [`GET ${ADMIN}`]: {
    description:
      'Every news item, scheduled ones included, latest release first, optionally of one `languageCode`; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { limit: 50 },
    response: page([stored]),
  },
  [`POST ${ADMIN}`]: {
    description:
      'Publishes a news item: `title` 1–200 characters on one line, `message` 1–10,000, `languageCode` a BCP 47 tag ' +
      '(stored canonical), `releaseDate` optional (absent: now; in the future: scheduled, hidden from players until then). 201 with the stored item.',
    request: { title: 'Season 3 starts', message: 'New boards, new cosmetics.', languageCode: 'en' },
    response: stored,
  },
  [`PUT ${ADMIN}/{id}`]: {
    description: 'Changes a news item: the fields sent, the others stay as they are. 404 `NOT_FOUND`.',
    parameters: { id: EX.newsId },
    request: { releaseDate: '2026-12-01T09:00:00Z' },
    response: { ...stored, releaseDate: '2026-12-01T09:00:00.000Z', scheduled: true },
  },
  [`DELETE ${ADMIN}/{id}`]: {
    description: 'Deletes a news item. 404 `NOT_FOUND`.',
    parameters: { id: EX.newsId },
    response: { id: EX.newsId, deleted: true },
  },
}
