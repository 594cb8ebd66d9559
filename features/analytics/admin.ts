// The analytics routes of contract §12: exact totals, daily series, retention cohorts and a board's
// score distribution. Reads only: rollups, indexes and the leaderboard's count tree.
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import { errors } from '../../platform/schemas/common.js'
import {
  CountsResponseSchema,
  DailyQuerySchema,
  DailyResponseSchema,
  HistogramParamsSchema,
  HistogramQuerySchema,
  HistogramResponseSchema,
  RetentionQuerySchema,
  RetentionResponseSchema,
} from './schemas.js'
import { scoreHistogram } from '../leaderboard/service.js'
import { counts, dailySeries, parseMetrics, retention } from './reads.js'
import { dayRange } from './days.js'
import { dailyCsv, retentionCsv, wantsCsv } from './csv.js'

const tags = ['Admin', 'Analytics']
const security = [{ adminKey: [] }]
const CsvSchema = Type.String({ description: 'The same data as CSV, with a header row' })
const jsonOrCsv = <T>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema }, 'text/csv': { schema: CsvSchema } },
})
const CSV_TYPE = 'text/csv; charset=utf-8'

const analyticsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/analytics/counts',
    {
      schema: {
        tags,
        security,
        summary: 'Exact totals: players by kind, banned, active today, boards, entries, saves and more',
        querystring: Type.Object({}),
        response: { 200: CountsResponseSchema, ...errors(400, 401, 403, 429) },
      },
    },
    async () => counts(app.db, app.clock.now()),
  )

  app.get(
    '/analytics/daily',
    {
      schema: {
        tags,
        security,
        summary: 'Daily series (sign-ups, active players, crash-free rate, submits, ...) over a range of days',
        querystring: DailyQuerySchema,
        response: { 200: jsonOrCsv(DailyResponseSchema, 'The series'), ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const metrics = parseMetrics(request.query.metrics)
      const range = dayRange(request.query, app.clock.now())
      const data = await dailySeries(app.db, metrics, range, request.query)
      if (wantsCsv(request.headers.accept)) return (reply as FastifyReply).type(CSV_TYPE).send(dailyCsv(data))
      return data
    },
  )

  app.get(
    '/analytics/retention',
    {
      schema: {
        tags,
        security,
        summary: 'Retention cohorts by sign-up day: the share active 1, 7 and 30 days later',
        querystring: RetentionQuerySchema,
        response: { 200: jsonOrCsv(RetentionResponseSchema, 'The cohorts'), ...errors(400, 401, 403, 429) },
      },
    },
    async (request, reply) => {
      const now = app.clock.now()
      const data = await retention(app.db, dayRange(request.query, now), now)
      if (wantsCsv(request.headers.accept)) return (reply as FastifyReply).type(CSV_TYPE).send(retentionCsv(data))
      return data
    },
  )

  app.get(
    '/leaderboards/:boardKey/histogram',
    {
      schema: {
        tags,
        security,
        summary: "The score distribution of a board's current period",
        params: HistogramParamsSchema,
        querystring: HistogramQuerySchema,
        response: { 200: HistogramResponseSchema, ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => scoreHistogram(app.db, request.params.boardKey, request.query.buckets ?? 20, app.clock.now()),
  )
}

export default analyticsAdmin
