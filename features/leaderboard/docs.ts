import type { NamedSchemas, OperationDocs } from '../../platform/openapi/index.js'
import { EX, page } from '../../platform/openapi/examples.js'
import {
  AdminBoardListSchema,
  AdminBoardSchema,
  AdminEntryListSchema,
  AroundResponseSchema,
  BoardBanSchema,
  BoardSummarySchema,
  EntrySchema,
  RankResponseSchema,
  SubmitBodySchema,
  SubmitResponseSchema,
  TopResponseSchema,
} from './schemas.js'
import { APP_PREFIX, ADMIN_PREFIX } from '../../platform/core/paths.js'

const APP = APP_PREFIX
const ADMIN = `${ADMIN_PREFIX}/leaderboards`

const profile = { avatarId: 'fox', frameId: null, badges: ['beta-tester'] }
const entry = (position: number, userId: string, username: string, score: number) => ({
  position,
  userId,
  username,
  score,
  updatedAt: EX.now,
  profile,
})
const ada = entry(3, EX.userId, 'Ada', 4200)
const top = {
  leaderboardKey: 'default',
  entries: [entry(1, EX.otherUserId, 'Grace', 5100), entry(2, EX.id, 'Linus', 4700), ada],
  total: 128,
}
const around = { leaderboardKey: 'speedrun', entries: [entry(2, EX.otherUserId, 'Grace', 4700), ada] }
const rank = {
  leaderboardKey: 'default',
  position: 3,
  userId: EX.userId,
  username: 'Ada',
  score: 4200,
  profile,
  total: 128,
  ranked: true,
}
const summary = {
  id: EX.id,
  key: 'speedrun',
  boardKey: 'speedrun',
  name: 'Speedrun',
  sortOrder: 'asc',
  updateStrategy: 'best',
  resetSchedule: 'weekly',
  validatedOnly: false,
  isActive: true,
  scoreCount: 128,
  createdAt: EX.earlier,
  updatedAt: EX.now,
}
const board = { ...summary, minScore: 0, maxScore: 3600000 }
const submitResult = {
  success: true,
  leaderboardKey: 'default',
  score: 4200,
  submittedScore: 4200,
  improved: true,
  position: 3,
}

const SUBMIT =
  'User-scoped: in the default compat mode `userId` alone is accepted, and a bearer token sent with it must be valid ' +
  "(401 `SESSION_REQUIRED`) and this user's (403 `SESSION_FORBIDDEN`); in strict mode (`AUTH_MODE=strict`) the bearer " +
  "is required. Writes the score under the board's update strategy (`best` keeps the better score, `latest` replaces, " +
  '`increment` adds). `score` is the stored score, `submittedScore` the one sent, `improved` true when the stored score ' +
  'changed (and on a first entry), `position` the 1-based position after the write. `metadata` (a string or object, ≤ 2 KiB ' +
  'serialized; the Unreal SDK sends a string) is kept with the entry when the stored score changes and shown only to the ' +
  "operator. A score outside the board's bounds is 400 `VALIDATION_ERROR` naming them, and nothing is stored. 404 " +
  '`USER_NOT_FOUND`, or `LEADERBOARD_NOT_FOUND` (unknown or inactive board); 403 `USER_BANNED`, `PLAYER_BANNED` (banned ' +
  'from this board) or `VALIDATED_SUBMIT_REQUIRED` (the board takes validated runs only).'
const READ =
  'No session needed (a bearer sent is ignored). Ranking: score in board order, then the earlier time the score was ' +
  'reached, then `userId`; positions are 1-based and unique, and top, rank and around always agree. `period=previous` ' +
  'reads the last finished period of a board with a reset schedule. 404 `LEADERBOARD_NOT_FOUND` for an unknown or inactive board.'
const TOP =
  `${READ} \`limit\` 1–100 (default 10) and \`offset\` ≥ 0 (default 0); an integer \`limit\` out of range is clamped ` +
  '(500 reads 100, 0 reads 1) as clients written for the PHP server expect; a non-integer is 400, and so is a negative ' +
  '`offset`. `total` counts the entries of the period. `userId` in the query (sent by some SDKs) is ignored.'
const RANK =
  `${READ} A player with no entry is not an error (compat): 200 with \`position: 0\`, \`score: 0\`, \`ranked: false\`. ` +
  '404 `USER_NOT_FOUND` for an unknown user.'
const AROUND =
  `${READ} Up to \`range\` (1–50, default 10; clamped like \`limit\`) entries above and below the player, the player ` +
  'included; `entries: []` for a player with no entry. 404 `USER_NOT_FOUND` for an unknown user.'

export const components: NamedSchemas = {
  LeaderboardEntry: EntrySchema,
  LeaderboardTop: TopResponseSchema,
  LeaderboardAround: AroundResponseSchema,
  LeaderboardRank: RankResponseSchema,
  ScoreSubmission: SubmitBodySchema,
  ScoreSubmitResult: SubmitResponseSchema,
  LeaderboardSummary: BoardSummarySchema,
  Leaderboard: AdminBoardSchema,
  LeaderboardPage: AdminBoardListSchema,
  AdminLeaderboardEntryPage: AdminEntryListSchema,
  LeaderboardBan: BoardBanSchema,
}

export const docs: OperationDocs = {
  [`POST ${APP}/leaderboard/submit`]: {
    description: `Submits to the default board, or to \`leaderboardKey\` when sent (the self-hosted form). ${SUBMIT}`,
    request: { userId: EX.userId, score: 4200, metadata: { character: 'knight' } },
    response: submitResult,
  },
  [`POST ${APP}/leaderboards/{boardKey}/submit`]: {
    description: `Submits to the board in the path (the hosted form; the path wins over a \`leaderboardKey\` in the body). Clients URL-encode the key. ${SUBMIT}`,
    parameters: { boardKey: 'speedrun' },
    request: { userId: EX.userId, score: 4200 },
    response: { ...submitResult, leaderboardKey: 'speedrun' },
  },
  [`GET ${APP}/leaderboard/top`]: {
    description: `The top entries of the default board, or of \`leaderboardKey\` (the self-hosted form). ${TOP}`,
    parameters: { limit: 3, offset: 0 },
    response: top,
  },
  [`GET ${APP}/leaderboards/{boardKey}/top`]: {
    description: `The top entries of the board in the path (the hosted form). ${TOP}`,
    parameters: { boardKey: 'default', limit: 3 },
    response: top,
  },
  [`GET ${APP}/leaderboard/rank`]: {
    description: `A player's position on the default board, or on \`leaderboardKey\`. ${RANK}`,
    parameters: { userId: EX.userId },
    response: rank,
  },
  [`GET ${APP}/leaderboards/{boardKey}/rank`]: {
    description: `A player's position on the board in the path. ${RANK}`,
    parameters: { boardKey: 'default', userId: EX.userId },
    response: rank,
  },
  [`GET ${APP}/leaderboard/around`]: {
    description: `Entries around a player on the default board, or on \`leaderboardKey\`. ${AROUND}`,
    parameters: { userId: EX.userId, range: 1, leaderboardKey: 'speedrun' },
    response: around,
  },
  [`GET ${APP}/leaderboards/{boardKey}/around`]: {
    description: `Entries around a player on the board in the path. ${AROUND}`,
    parameters: { boardKey: 'speedrun', userId: EX.userId, range: 1 },
    response: around,
  },
  [`GET ${APP}/leaderboards`]: {
    description:
      'The active boards (compat): `boardKey` equals `key`, `totalElements` counts them. Inactive boards are left out. ' +
      'Board `default` (descending, best) always exists.',
    response: { boards: [summary], totalElements: 1 },
  },
  [`GET ${ADMIN}`]: {
    description:
      'Every board, active or not, with its score bounds; a page of at most `limit` (1–100, default 50), `cursor` for the next.',
    parameters: { limit: 50 },
    response: page([board]),
  },
  [`PUT ${ADMIN}/{boardKey}`]: {
    description:
      'Creates the board, or updates the fields sent (all optional on update). Key: 1–64 characters of letters, digits, ' +
      'space, `.`, `_`, `-`, case-sensitive. `sortOrder` `desc` | `asc` (default desc); `updateStrategy` `best` | `latest` ' +
      '| `increment` (default best); `minScore`/`maxScore` integers (default 0 and 2^53−1; `minScore` above `maxScore` ' +
      'is 400); `resetSchedule` `none` | `daily` | `weekly` | `monthly` at 00:00 UTC, weeks start Monday (finished periods ' +
      'stay readable with `period=previous`); `validatedOnly`: only validated runs may write scores; `isActive` (default ' +
      'true): an inactive board is hidden from players (404 `LEADERBOARD_NOT_FOUND`). Answers the stored board.',
    parameters: { boardKey: 'speedrun' },
    request: { name: 'Speedrun', sortOrder: 'asc', resetSchedule: 'weekly', maxScore: 3600000 },
    response: board,
  },
  [`DELETE ${ADMIN}/{boardKey}`]: {
    description:
      'Deletes the board and all its entries and bans. `default` cannot be deleted: 409 `CONFLICT`. 404 `LEADERBOARD_NOT_FOUND`.',
    parameters: { boardKey: 'speedrun' },
    response: { leaderboardKey: 'speedrun', deleted: true },
  },
  [`POST ${ADMIN}/{boardKey}/reset`]: {
    description:
      "Empties the board's current period now (earlier periods are kept). Answers the board. 404 `LEADERBOARD_NOT_FOUND`.",
    parameters: { boardKey: 'speedrun' },
    response: { ...board, scoreCount: 0 },
  },
  [`GET ${ADMIN}/{boardKey}/entries`]: {
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
  [`DELETE ${ADMIN}/{boardKey}/entries/{userId}`]: {
    description:
      "Removes a player's entry from the current period. 404 `LEADERBOARD_NOT_FOUND`, or `NOT_FOUND` when the player has no entry there.",
    parameters: { boardKey: 'speedrun', userId: EX.userId },
    response: { leaderboardKey: 'speedrun', userId: EX.userId, deleted: true },
  },
  [`PUT ${ADMIN}/{boardKey}/bans/{userId}`]: {
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
  [`DELETE ${ADMIN}/{boardKey}/bans/{userId}`]: {
    description:
      'Lifts a board ban; the entry shows again. 404 `LEADERBOARD_NOT_FOUND`, or `NOT_FOUND` when the player is not banned from the board.',
    parameters: { boardKey: 'speedrun', userId: EX.userId },
    response: { leaderboardKey: 'speedrun', userId: EX.userId, banned: false, reason: null, bannedAt: null },
  },
}
