// The app routes of leaderboards: what the feature guarantees is in index.ts.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { errors, present } from '../../platform/schemas/common.js'
import {
  AROUND_RANGE,
  AroundQuerySchema,
  AroundResponseSchema,
  BoardListSchema,
  BoardParamsSchema,
  RankQuerySchema,
  RankResponseSchema,
  SubmitBodySchema,
  SubmitResponseSchema,
  TOP_LIMIT,
  TopQuerySchema,
  TopResponseSchema,
  type SubmitBody,
  type TopQuery,
} from './schemas.js'
import { aroundOf, listActiveBoards, rankOf, serializedMetadata, submitScore, topEntries } from './service.js'
import { DEFAULT_BOARD } from './admin-service.js'
import { clamp } from '../../platform/http/pagination.js'
import type { TopPageCache } from './top-cache.js'

const tags = ['Leaderboard']
const readErrors = errors(400, 401, 404, 429)

const leaderboard: FastifyPluginAsyncTypebox<{ topPages: TopPageCache }> = async (app, { topPages }) => {
  const scoreSubmitted = app.metrics.counter('outpost_score_submits_total')
  const submit = async (boardKey: string, body: SubmitBody, request: FastifyRequest) => {
    const now = app.clock.now()
    const result = await submitScore(app.db, app.events, {
      checkUser: request.identity?.checked === false,
      boardKey,
      userId: body.userId,
      score: body.score,
      metadata: body.metadata,
      validated: false,
      now,
    })
    scoreSubmitted()
    app.events.notify(app.db, 'scoreSubmitted', boardKey, now)
    return { success: true as const, ...result }
  }
  const submitSchema = {
    tags,
    body: SubmitBodySchema,
    response: { 200: SubmitResponseSchema, ...errors(400, 401, 403, 404, 429) },
  }
  // The metadata's size is validation: checked before the session. The player's standing is read
  // with the board and the entry, in the submit's first statement.
  const submitConfig = {
    validate: (request: FastifyRequest) => void serializedMetadata((request.body as SubmitBody).metadata),
    standingInHandler: true,
  }

  app.post(
    '/leaderboard/submit',
    {
      schema: { ...submitSchema, summary: 'Submit a score (default board unless leaderboardKey)' },
      config: submitConfig,
      preHandler: app.auth.userScoped,
    },
    async (request) => submit(present(request.body.leaderboardKey) ?? DEFAULT_BOARD, request.body, request),
  )

  app.post(
    '/leaderboards/:boardKey/submit',
    {
      schema: { ...submitSchema, params: BoardParamsSchema, summary: 'Submit a score to a board (the path wins)' },
      config: submitConfig,
      preHandler: app.auth.userScoped,
    },
    async (request) => submit(request.params.boardKey, request.body, request),
  )

  const selfHosted = (key: string | null | undefined) => present(key) ?? DEFAULT_BOARD

  const top = async (reply: FastifyReply, boardKey: string, query: TopQuery) => {
    const options = { ...query, limit: clamp(query.limit, TOP_LIMIT) }
    const json = await topEntries(
      app.db,
      topPages,
      boardKey,
      options,
      app.clock.now(),
      (page) => reply.serialize(page) as string,
    )
    return reply.type('application/json; charset=utf-8').send(json as never)
  }

  app.get(
    '/leaderboard/top',
    {
      schema: {
        tags,
        summary: 'Top entries (default board unless leaderboardKey)',
        querystring: TopQuerySchema,
        response: { 200: TopResponseSchema, ...readErrors },
      },
    },
    async (request, reply) => top(reply, selfHosted(request.query.leaderboardKey), request.query),
  )

  app.get(
    '/leaderboards/:boardKey/top',
    {
      schema: {
        tags,
        summary: 'Top entries of a board',
        params: BoardParamsSchema,
        querystring: TopQuerySchema,
        response: { 200: TopResponseSchema, ...readErrors },
      },
    },
    async (request, reply) => top(reply, request.params.boardKey, request.query),
  )

  app.get(
    '/leaderboard/rank',
    {
      schema: {
        tags,
        summary: "A player's position (default board unless leaderboardKey)",
        querystring: RankQuerySchema,
        response: { 200: RankResponseSchema, ...readErrors },
      },
    },
    async (request) =>
      rankOf(
        app.db,
        selfHosted(request.query.leaderboardKey),
        request.query.userId,
        request.query.period,
        app.clock.now(),
      ),
  )

  app.get(
    '/leaderboards/:boardKey/rank',
    {
      schema: {
        tags,
        summary: "A player's position on a board",
        params: BoardParamsSchema,
        querystring: RankQuerySchema,
        response: { 200: RankResponseSchema, ...readErrors },
      },
    },
    async (request) =>
      rankOf(app.db, request.params.boardKey, request.query.userId, request.query.period, app.clock.now()),
  )

  app.get(
    '/leaderboard/around',
    {
      schema: {
        tags,
        summary: 'Entries around a player (default board unless leaderboardKey)',
        querystring: AroundQuerySchema,
        response: { 200: AroundResponseSchema, ...readErrors },
      },
    },
    async (request) => {
      const { userId, range, period, leaderboardKey } = request.query
      return aroundOf(app.db, selfHosted(leaderboardKey), userId, clamp(range, AROUND_RANGE), period, app.clock.now())
    },
  )

  app.get(
    '/leaderboards/:boardKey/around',
    {
      schema: {
        tags,
        summary: 'Entries around a player on a board',
        params: BoardParamsSchema,
        querystring: AroundQuerySchema,
        response: { 200: AroundResponseSchema, ...readErrors },
      },
    },
    async (request) => {
      const { userId, range, period } = request.query
      return aroundOf(app.db, request.params.boardKey, userId, clamp(range, AROUND_RANGE), period, app.clock.now())
    },
  )

  app.get(
    '/leaderboards',
    { schema: { tags, summary: 'The active boards', response: { 200: BoardListSchema, ...errors(401, 429) } } },
    async () => listActiveBoards(app.db, app.clock.now()),
  )
}

export default leaderboard
