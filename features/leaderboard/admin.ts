// The operator's side of leaderboards: define boards, read and remove entries (with their
// metadata), reset the current period, ban a player from one board.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminListQuerySchema, present } from '../../platform/schemas/common.js'
import {
  AdminBoardListSchema,
  AdminBoardSchema,
  AdminEntriesQuerySchema,
  AdminEntryListSchema,
  BoardBanBodySchema,
  BoardBanSchema,
  BoardDeletedSchema,
  BoardParamsSchema,
  BoardPutBodySchema,
  BoardUserParamsSchema,
  EntryDeletedSchema,
} from './schemas.js'
import {
  banPlayer,
  deleteBoard,
  deleteEntry,
  listBoards,
  listEntries,
  putBoard,
  resetBoard,
  unbanPlayer,
} from './admin-service.js'
import { routesOf } from '../../platform/openapi/routes.js'
import { manifest } from './manifest.js'
import { EX, page } from '../../platform/openapi/examples.js'
import * as examples from './docs.js'

const leaderboardAdmin: FastifyPluginAsyncTypebox = async (app) => {
  const route = routesOf(manifest)
  app.get(
    '/leaderboards',
    {
      schema: route.admin({
        summary: 'Every board, active or not',
        querystring: AdminListQuerySchema,
        response: { 200: AdminBoardListSchema },
        docs: {
          description:
            'Every board, active or not, with its score bounds; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
          parameters: { limit: 50 },
          response: page([examples.board]),
        },
      }),
    },
    async (request) => listBoards(request.reads, request.query, app.clock.now()),
  )

  app.put(
    '/leaderboards/:boardKey',
    {
      schema: route.admin({
        summary: 'Create a board, or update the fields sent',
        params: BoardParamsSchema,
        body: BoardPutBodySchema,
        response: { 200: AdminBoardSchema },
        docs: {
          description:
            'Creates the board, or updates the fields sent (all optional on update). Key: 1–64 characters of letters, digits, ' +
            'space, `.`, `_`, `-`, case-sensitive. `sortOrder` `desc` | `asc` (default desc); `updateStrategy` `best` | `latest` ' +
            '| `increment` (default best); `minScore`/`maxScore` integers (default 0 and 2^53−1; `minScore` above `maxScore` ' +
            'is 400); `resetSchedule` `none` | `daily` | `weekly` | `monthly` at 00:00 UTC, weeks start Monday (finished periods ' +
            'stay readable with `period=previous`); `validatedOnly`: only validated runs may write scores; `isActive` (default ' +
            'true): an inactive board is hidden from players (404 `LEADERBOARD_NOT_FOUND`). Answers the stored board.',
          parameters: { boardKey: 'speedrun' },
          request: { name: 'Speedrun', sortOrder: 'asc', resetSchedule: 'weekly', maxScore: 3600000 },
          response: examples.board,
        },
      }),
    },
    async (request) => putBoard(request.db, app.events, request.params.boardKey, request.body, app.clock.now()),
  )

  app.delete(
    '/leaderboards/:boardKey',
    {
      schema: route.admin({
        summary: "Delete a board and its entries ('default' cannot be deleted)",
        params: BoardParamsSchema,
        response: { 200: BoardDeletedSchema },
        errors: [404, 409],
        docs: {
          description:
            'Deletes the board and all its entries and bans. `default` cannot be deleted: 409 `CONFLICT`. 404 `LEADERBOARD_NOT_FOUND`.',
          parameters: { boardKey: 'speedrun' },
          response: { leaderboardKey: 'speedrun', deleted: true },
        },
      }),
    },
    async (request) => {
      await deleteBoard(request.db, app.events, request.params.boardKey)
      return { leaderboardKey: request.params.boardKey, deleted: true as const }
    },
  )

  app.post(
    '/leaderboards/:boardKey/reset',
    {
      schema: route.admin({
        summary: "Empty the board's current period",
        params: BoardParamsSchema,
        response: { 200: AdminBoardSchema },
        errors: [404],
        docs: {
          description:
            "Empties the board's current period now (earlier periods are kept). Answers the board. 404 `LEADERBOARD_NOT_FOUND`.",
          parameters: { boardKey: 'speedrun' },
          response: { ...examples.board, scoreCount: 0 },
        },
      }),
    },
    async (request) => resetBoard(request.db, app.events, request.params.boardKey, app.clock.now()),
  )

  app.get(
    '/leaderboards/:boardKey/entries',
    {
      schema: route.admin({
        summary: 'Entries in ranking order, with metadata',
        params: BoardParamsSchema,
        querystring: AdminEntriesQuerySchema,
        response: { 200: AdminEntryListSchema },
        errors: [404],
        docs: {
          description:
            "The board's entries in ranking order, with their metadata; banned players' entries are listed as `hidden` with " +
            '`position: null`. `period` `current` (default) or `previous`; a page of at most `limit` (1–100, default 50). 404 `LEADERBOARD_NOT_FOUND`.',
          parameters: { boardKey: 'speedrun', limit: 50 },
          response: page(
            [
              {
                position: 1,
                userId: EX.userId,
                username: 'Ada',
                score: 4200,
                metadata: { character: 'knight' },
                hidden: false,
                period: '2026-W47',
                createdAt: EX.earlier,
                updatedAt: EX.now,
              },
            ],
            'eyJwIjoxfQ',
          ),
        },
      }),
    },
    async (request) => listEntries(request.reads, request.params.boardKey, request.query, app.clock.now()),
  )

  app.delete(
    '/leaderboards/:boardKey/entries/:userId',
    {
      schema: route.admin({
        summary: "Remove a player's entry from the current period",
        params: BoardUserParamsSchema,
        response: { 200: EntryDeletedSchema },
        errors: [404],
        docs: {
          description:
            "Removes a player's entry from the current period. 404 `LEADERBOARD_NOT_FOUND`, or `NOT_FOUND` when the player has no entry there.",
          parameters: { boardKey: 'speedrun', userId: EX.userId },
          response: { leaderboardKey: 'speedrun', userId: EX.userId, deleted: true },
        },
      }),
    },
    async (request) => {
      const { boardKey, userId } = request.params
      await deleteEntry(request.db, app.events, boardKey, userId, app.clock.now())
      return { leaderboardKey: boardKey, userId, deleted: true as const }
    },
  )

  app.put(
    '/leaderboards/:boardKey/bans/:userId',
    {
      schema: route.admin({
        summary: 'Ban a player from this board (their entries are hidden)',
        params: BoardUserParamsSchema,
        body: BoardBanBodySchema,
        response: { 200: BoardBanSchema },
        errors: [404],
        docs: {
          description:
            'Bans a player from this board: their entry is hidden from top, rank and around while banned, and their submits ' +
            'are 403 `PLAYER_BANNED`. `reason` ≤ 500 characters, optional. 404 `LEADERBOARD_NOT_FOUND` or `USER_NOT_FOUND`.',
          parameters: { boardKey: 'speedrun', userId: EX.userId },
          request: { reason: 'Impossible times' },
          response: {
            leaderboardKey: 'speedrun',
            userId: EX.userId,
            banned: true,
            reason: 'Impossible times',
            bannedAt: EX.now,
          },
        },
      }),
    },
    async (request) => {
      const { boardKey, userId } = request.params
      return banPlayer(request.db, app.events, boardKey, userId, present(request.body?.reason), app.clock.now())
    },
  )

  app.delete(
    '/leaderboards/:boardKey/bans/:userId',
    {
      schema: route.admin({
        summary: 'Lift a board ban',
        params: BoardUserParamsSchema,
        response: { 200: BoardBanSchema },
        errors: [404],
        docs: {
          description:
            'Lifts a board ban; the entry shows again. 404 `LEADERBOARD_NOT_FOUND`, or `NOT_FOUND` when the player is not banned from the board.',
          parameters: { boardKey: 'speedrun', userId: EX.userId },
          response: { leaderboardKey: 'speedrun', userId: EX.userId, banned: false, reason: null, bannedAt: null },
        },
      }),
    },
    async (request) => unbanPlayer(request.db, app.events, request.params.boardKey, request.params.userId),
  )
}

export default leaderboardAdmin
