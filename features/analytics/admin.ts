// The analytics routes of contract §12: exact totals, daily series, retention cohorts and a board's
// score distribution. Reads only: rollups, indexes and the leaderboard's count tree.
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from '@sinclair/typebox'
import {
  CountsResponseSchema,
  DailyQuerySchema,
  DailyResponseSchema,
  DAILY_METRICS,
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
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import * as examples from './docs.js'

const CsvSchema = Type.String({ description: 'The same data as CSV, with a header row' })
const jsonOrCsv = <T>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema }, 'text/csv': { schema: CsvSchema } },
})
const CSV_TYPE = 'text/csv; charset=utf-8'

const analyticsAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/analytics/counts',
    {
      schema: route.admin({
        summary: 'Exact totals: players by kind, banned, active today, boards, entries, saves and more',
        querystring: Type.Object({}),
        response: { 200: CountsResponseSchema },
        errors: [403],
        docs: {
          description:
            'Exact totals, never capped, each a COUNT over an index: players (and by how they sign in: anonymous, e-mail and ' +
            'password, Apple, Google — an account with two ways in counts under both), banned players, players active today ' +
            "(marks are written every 5 s), boards, visible entries of every board's current period, cloud saves, gift codes, " +
            'crash groups open or regressed, suspicious validated runs not yet reviewed, e-mails pending or being sent, feedback.',
          response: {
            players: 1250,
            playersByKind: { anonymous: 1100, email: 120, apple: 20, google: 10 },
            bannedPlayers: 3,
            activeToday: 412,
            boards: 2,
            entries: 980,
            saves: 870,
            giftCodes: 15,
            openCrashGroups: 4,
            pendingReviews: 1,
            emailsQueued: 0,
            feedback: 37,
          },
        },
      }),
    },
    async (request) => counts(request.reads, app.clock.now()),
  )

  app.get(
    '/analytics/daily',
    {
      schema: route.admin({
        summary: 'Daily series (sign-ups, active players, crash-free rate, submits, ...) over a range of days',
        querystring: DailyQuerySchema,
        response: { 200: jsonOrCsv(DailyResponseSchema, 'The series') },
        errors: [403],
        docs: {
          description:
            `Daily series, one value per day of the range, zeros included, read from the daily rollups. \`metrics\` is a comma ` +
            `list of ${DAILY_METRICS.join(', ')} (default all; an unknown name is 400 naming the allowed ones). ` +
            '`active`: players with a successful app request that day; `sessions`: crash-reporting sessions started; ' +
            '`crashFreeRate`: the share of those sessions that did not crash (null on a day without sessions); `crashes`: ' +
            'crash reports received; `appVersion` narrows these three: each day keeps the 20 versions with the most sessions ' +
            'that day, the others are summed together, so a version answers null on a day it was not among those 20 (0 on a ' +
            'day with no more than 20 versions, where its absence is exact). `submits`: score submits, narrowed by ' +
            '`leaderboardKey`. `emailsSent` and `emailsFailed` count by the day of the outcome. Today is rebuilt every 30 s. ' +
            examples.RANGE,
          parameters: { metrics: 'active,signups,crashFreeRate', from: '2026-11-20', to: '2026-11-22' },
          response: {
            from: '2026-11-20',
            to: '2026-11-22',
            days: ['2026-11-20', '2026-11-21', '2026-11-22'],
            series: { active: [410, 398, 412], signups: [35, 28, 12], crashFreeRate: [0.995, 0.991, null] },
          },
        },
      }),
    },
    async (request, reply) => {
      const metrics = parseMetrics(request.query.metrics)
      const range = dayRange(request.query, app.clock.now())
      const data = await dailySeries(request.reads, metrics, range, request.query)
      if (wantsCsv(request.headers.accept)) return (reply as FastifyReply).type(CSV_TYPE).send(dailyCsv(data))
      return data
    },
  )

  app.get(
    '/analytics/retention',
    {
      schema: route.admin({
        summary: 'Retention cohorts by sign-up day: the share active 1, 7 and 30 days later',
        querystring: RetentionQuerySchema,
        response: { 200: jsonOrCsv(RetentionResponseSchema, 'The cohorts') },
        errors: [403],
        docs: {
          description:
            'Cohorts by sign-up day: `size` players signed up on `date`; `d1`, `d7`, `d30` the share of them active 1, 7 and ' +
            '30 days later — null while that day is still ahead, and for a day nobody signed up. ' +
            examples.RANGE,
          parameters: { from: '2026-11-20', to: '2026-11-21' },
          response: {
            cohorts: [
              { date: '2026-11-20', size: 35, d1: 0.4, d7: null, d30: null },
              { date: '2026-11-21', size: 28, d1: 0.5, d7: null, d30: null },
            ],
          },
        },
      }),
    },
    async (request, reply) => {
      const now = app.clock.now()
      const data = await retention(request.reads, dayRange(request.query, now), now)
      if (wantsCsv(request.headers.accept)) return (reply as FastifyReply).type(CSV_TYPE).send(retentionCsv(data))
      return data
    },
  )

  app.get(
    '/leaderboards/:boardKey/histogram',
    {
      schema: route.admin({
        summary: "The score distribution of a board's current period",
        params: HistogramParamsSchema,
        querystring: HistogramQuerySchema,
        response: { 200: HistogramResponseSchema },
        errors: [403, 404],
        docs: {
          description:
            "The score distribution of the board's current period (visible entries) in at most `buckets` (1–100, default 20) " +
            "buckets, `from` and `to` inclusive, each starting one above the previous one's end, from `min` to `max`. A few " +
            'far-off scores do not squash the rest into one bucket: the outliers — scores more than 1.5 interquartile ranges ' +
            "below the first quartile or above the third (Tukey's fences) — get an end bucket of their own on each side that " +
            'has any (the high side first when only one fits; none with `buckets=1`), and the buckets between share the other ' +
            'scores in equal integer widths (fewer buckets when those scores span fewer values). An empty period has no ' +
            'buckets (`min` and `max` null). The quartiles, ends and counts are read from the ranking count tree and the rank ' +
            'index, so its cost does not grow with the board. 404 `LEADERBOARD_NOT_FOUND` for an unknown board.',
          parameters: { boardKey: 'default', buckets: 4 },
          response: {
            boardKey: 'default',
            period: 'all',
            min: 0,
            max: 1000000,
            buckets: [
              { from: 0, to: 99, count: 120 },
              { from: 100, to: 199, count: 340 },
              { from: 200, to: 299, count: 95 },
              { from: 300, to: 1000000, count: 2 },
            ],
          },
        },
      }),
    },
    async (request) =>
      scoreHistogram(request.reads, request.params.boardKey, request.query.buckets ?? 20, app.clock.now()),
  )
}

export default analyticsAdmin
