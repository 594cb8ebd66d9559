// The operator's side of leaderboards: define boards, read and remove entries (with their
// metadata), reset the current period, ban a player from one board.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { AdminListQuerySchema, errors, present } from '../../platform/schemas/common.js'
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

const tags = ['Admin', 'Leaderboard']
const security = [{ adminKey: [] }]
const adminErrors = errors(400, 401, 404, 429)

const leaderboardAdmin: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/leaderboards',
    {
      schema: {
        tags,
        security,
        summary: 'Every board, active or not',
        querystring: AdminListQuerySchema,
        response: { 200: AdminBoardListSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => listBoards(app.db, request.query, app.clock.now()),
  )

  app.put(
    '/leaderboards/:boardKey',
    {
      schema: {
        tags,
        security,
        summary: 'Create a board, or update the fields sent',
        params: BoardParamsSchema,
        body: BoardPutBodySchema,
        response: { 200: AdminBoardSchema, ...errors(400, 401, 429) },
      },
    },
    async (request) => putBoard(app.db, app.events, request.params.boardKey, request.body, app.clock.now()),
  )

  app.delete(
    '/leaderboards/:boardKey',
    {
      schema: {
        tags,
        security,
        summary: "Delete a board and its entries ('default' cannot be deleted)",
        params: BoardParamsSchema,
        response: { 200: BoardDeletedSchema, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      await deleteBoard(app.db, app.events, request.params.boardKey)
      return { leaderboardKey: request.params.boardKey, deleted: true as const }
    },
  )

  app.post(
    '/leaderboards/:boardKey/reset',
    {
      schema: {
        tags,
        security,
        summary: "Empty the board's current period",
        params: BoardParamsSchema,
        response: { 200: AdminBoardSchema, ...adminErrors },
      },
    },
    async (request) => resetBoard(app.db, app.events, request.params.boardKey, app.clock.now()),
  )

  app.get(
    '/leaderboards/:boardKey/entries',
    {
      schema: {
        tags,
        security,
        summary: 'Entries in ranking order, with metadata',
        params: BoardParamsSchema,
        querystring: AdminEntriesQuerySchema,
        response: { 200: AdminEntryListSchema, ...adminErrors },
      },
    },
    async (request) => listEntries(app.db, request.params.boardKey, request.query, app.clock.now()),
  )

  app.delete(
    '/leaderboards/:boardKey/entries/:userId',
    {
      schema: {
        tags,
        security,
        summary: "Remove a player's entry from the current period",
        params: BoardUserParamsSchema,
        response: { 200: EntryDeletedSchema, ...adminErrors },
      },
    },
    async (request) => {
      const { boardKey, userId } = request.params
      await deleteEntry(app.db, app.events, boardKey, userId, app.clock.now())
      return { leaderboardKey: boardKey, userId, deleted: true as const }
    },
  )

  app.put(
    '/leaderboards/:boardKey/bans/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'Ban a player from this board (their entries are hidden)',
        params: BoardUserParamsSchema,
        body: BoardBanBodySchema,
        response: { 200: BoardBanSchema, ...adminErrors },
      },
    },
    async (request) => {
      const { boardKey, userId } = request.params
      return banPlayer(app.db, app.events, boardKey, userId, present(request.body?.reason), app.clock.now())
    },
  )

  app.delete(
    '/leaderboards/:boardKey/bans/:userId',
    {
      schema: {
        tags,
        security,
        summary: 'Lift a board ban',
        params: BoardUserParamsSchema,
        response: { 200: BoardBanSchema, ...adminErrors },
      },
    },
    async (request) => unbanPlayer(app.db, app.events, request.params.boardKey, request.params.userId),
  )
}

export default leaderboardAdmin
