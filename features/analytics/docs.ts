import type { NamedSchemas } from '../../platform/openapi/index.js'
import {
  CountsResponseSchema,
  DailyResponseSchema,
  HistogramResponseSchema,
  MAX_RANGE_DAYS,
  RetentionResponseSchema,
} from './schemas.js'

export const components: NamedSchemas = {
  AnalyticsCounts: CountsResponseSchema,
  AnalyticsDaily: DailyResponseSchema,
  AnalyticsRetention: RetentionResponseSchema,
  ScoreHistogram: HistogramResponseSchema,
}

export const RANGE =
  `\`from\` and \`to\` are UTC days \`YYYY-MM-DD\`, inclusive, at most ${MAX_RANGE_DAYS} days apart; the default is the ` +
  'last 30 days up to today. A malformed date, `from` after `to` or a longer range is 400 `VALIDATION_ERROR` saying ' +
  'what to send. `Accept: text/csv` answers the same data as CSV with a header row.'
