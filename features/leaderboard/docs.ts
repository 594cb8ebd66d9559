import type { NamedSchemas } from '../../platform/openapi/index.js'
import { EX } from '../../platform/openapi/examples.js'
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
export const top = {
  leaderboardKey: 'default',
  entries: [entry(1, EX.otherUserId, 'Grace', 5100), entry(2, EX.id, 'Linus', 4700), ada],
  total: 128,
}
export const around = { leaderboardKey: 'speedrun', entries: [entry(2, EX.otherUserId, 'Grace', 4700), ada] }
export const rank = {
  leaderboardKey: 'default',
  position: 3,
  userId: EX.userId,
  username: 'Ada',
  score: 4200,
  profile,
  total: 128,
  ranked: true,
}
export const summary = {
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
export const board = { ...summary, minScore: 0, maxScore: 3600000 }
export const submitResult = {
  success: true,
  leaderboardKey: 'default',
  score: 4200,
  submittedScore: 4200,
  improved: true,
  position: 3,
}

export const SUBMIT =
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
export const TOP =
  `${READ} \`limit\` 1–100 (default 10) and \`offset\` ≥ 0 (default 0); an integer \`limit\` out of range is clamped ` +
  '(500 reads 100, 0 reads 1) as clients written for the PHP server expect; a non-integer is 400, and so is a negative ' +
  '`offset`. `total` counts the entries of the period. `userId` in the query (sent by some SDKs) is ignored.'
export const RANK =
  `${READ} A player with no entry is not an error (compat): 200 with \`position: 0\`, \`score: 0\`, \`ranked: false\`. ` +
  '404 `USER_NOT_FOUND` for an unknown user.'
export const AROUND =
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
