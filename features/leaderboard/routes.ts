// The app routes of leaderboards: what the feature guarantees is in index.ts.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { present } from '../../platform/schemas/common.js'
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
import type { PerGame } from '../../platform/games/registry.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const leaderboard: FastifyPluginAsyncTypebox<{ topPages: PerGame<TopPageCache> }> = async (app, { topPages }) => {
  const route = routesOf(manifest)
  const scoreSubmitted = app.metrics.counter('outpost_score_submits_total')
  const submit = async (boardKey: string, body: SubmitBody, request: FastifyRequest) => {
    const now = app.clock.now()
    const result = await submitScore(request.db, app.events, {
      checkUser: request.identity?.checked === false,
      boardKey,
      userId: body.userId,
      score: body.score,
      metadata: body.metadata,
      validated: false,
      now,
    })
    scoreSubmitted(undefined, request.game.id)
    app.events.notify(request.db, 'scoreSubmitted', boardKey, now)
    return { success: true as const, ...result }
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
      schema: route.app({
        summary: 'Submit a score (default board unless leaderboardKey)',
        body: SubmitBodySchema,
        response: { 200: SubmitResponseSchema },
        errors: [403, 404],
        docs: {
          description: `Submits to the default board, or to \`leaderboardKey\` when sent (the self-hosted form). ${examples.SUBMIT}`,
          request: { userId: EX.userId, score: 4200, metadata: { character: 'knight' } },
          response: examples.submitResult,
        },
      }),
      config: submitConfig,
      preHandler: app.auth.userScoped,
    },
    async (request) => submit(present(request.body.leaderboardKey) ?? DEFAULT_BOARD, request.body, request),
  )

  app.post(
    '/leaderboards/:boardKey/submit',
    {
      schema: route.app({
        summary: 'Submit a score to a board (the path wins)',
        params: BoardParamsSchema,
        body: SubmitBodySchema,
        response: { 200: SubmitResponseSchema },
        errors: [403, 404],
        docs: {
          description: `Submits to the board in the path (the hosted form; the path wins over a \`leaderboardKey\` in the body). Clients URL-encode the key. ${examples.SUBMIT}`,
          parameters: { boardKey: 'speedrun' },
          request: { userId: EX.userId, score: 4200 },
          response: { ...examples.submitResult, leaderboardKey: 'speedrun' },
        },
      }),
      config: submitConfig,
      preHandler: app.auth.userScoped,
    },
    async (request) => submit(request.params.boardKey, request.body, request),
  )

  const selfHosted = (key: string | null | undefined) => present(key) ?? DEFAULT_BOARD

  const top = async (request: FastifyRequest, reply: FastifyReply, boardKey: string, query: TopQuery) => {
    const options = { ...query, limit: clamp(query.limit, TOP_LIMIT) }
    const json = await topEntries(
      request.db,
      topPages.of(request.game),
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
      schema: route.app({
        summary: 'Top entries (default board unless leaderboardKey)',
        querystring: TopQuerySchema,
        response: { 200: TopResponseSchema },
        errors: [404],
        docs: {
          description: `The top entries of the default board, or of \`leaderboardKey\` (the self-hosted form). ${examples.TOP}`,
          parameters: { limit: 3, offset: 0 },
          response: examples.top,
        },
      }),
    },
    async (request, reply) => top(request, reply, selfHosted(request.query.leaderboardKey), request.query),
  )

  app.get(
    '/leaderboards/:boardKey/top',
    {
      schema: route.app({
        summary: 'Top entries of a board',
        params: BoardParamsSchema,
        querystring: TopQuerySchema,
        response: { 200: TopResponseSchema },
        errors: [404],
        docs: {
          description: `The top entries of the board in the path (the hosted form). ${examples.TOP}`,
          parameters: { boardKey: 'default', limit: 3 },
          response: examples.top,
        },
      }),
    },
    async (request, reply) => top(request, reply, request.params.boardKey, request.query),
  )

  app.get(
    '/leaderboard/rank',
    {
      schema: route.app({
        summary: "A player's position (default board unless leaderboardKey)",
        querystring: RankQuerySchema,
        response: { 200: RankResponseSchema },
        errors: [404],
        docs: {
          description: `A player's position on the default board, or on \`leaderboardKey\`. ${examples.RANK}`,
          parameters: { userId: EX.userId },
          response: examples.rank,
        },
      }),
    },
    async (request) =>
      rankOf(
        request.db,
        selfHosted(request.query.leaderboardKey),
        request.query.userId,
        request.query.period,
        app.clock.now(),
      ),
  )

  app.get(
    '/leaderboards/:boardKey/rank',
    {
      schema: route.app({
        summary: "A player's position on a board",
        params: BoardParamsSchema,
        querystring: RankQuerySchema,
        response: { 200: RankResponseSchema },
        errors: [404],
        docs: {
          description: `A player's position on the board in the path. ${examples.RANK}`,
          parameters: { boardKey: 'default', userId: EX.userId },
          response: examples.rank,
        },
      }),
    },
    async (request) =>
      rankOf(request.db, request.params.boardKey, request.query.userId, request.query.period, app.clock.now()),
  )

  app.get(
    '/leaderboard/around',
    {
      schema: route.app({
        summary: 'Entries around a player (default board unless leaderboardKey)',
        querystring: AroundQuerySchema,
        response: { 200: AroundResponseSchema },
        errors: [404],
        docs: {
          description: `Entries around a player on the default board, or on \`leaderboardKey\`. ${examples.AROUND}`,
          parameters: { userId: EX.userId, range: 1, leaderboardKey: 'speedrun' },
          response: examples.around,
        },
      }),
    },
    async (request) => {
      const { userId, range, period, leaderboardKey } = request.query
      return aroundOf(
        request.db,
        selfHosted(leaderboardKey),
        userId,
        clamp(range, AROUND_RANGE),
        period,
        app.clock.now(),
      )
    },
  )

  app.get(
    '/leaderboards/:boardKey/around',
    {
      schema: route.app({
        summary: 'Entries around a player on a board',
        params: BoardParamsSchema,
        querystring: AroundQuerySchema,
        response: { 200: AroundResponseSchema },
        errors: [404],
        docs: {
          description: `Entries around a player on the board in the path. ${examples.AROUND}`,
          parameters: { boardKey: 'speedrun', userId: EX.userId, range: 1 },
          response: examples.around,
        },
      }),
    },
    async (request) => {
      const { userId, range, period } = request.query
      return aroundOf(request.db, request.params.boardKey, userId, clamp(range, AROUND_RANGE), period, app.clock.now())
    },
  )

  app.get(
    '/leaderboards',
    {
      schema: route.app({
        summary: 'The active boards',
        response: { 200: BoardListSchema },
        docs: {
          description:
            'The active boards (compat): `boardKey` equals `key`, `totalElements` counts them. Inactive boards are left out. ' +
            'Board `default` (descending, best) always exists.',
          response: { boards: [examples.summary], totalElements: 1 },
        },
      }),
    },
    async (request) => listActiveBoards(request.reads, app.clock.now()),
  )
}

export default leaderboard
