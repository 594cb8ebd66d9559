// `import:php --game <id>`: the PHP server's data goes into that game's database, and the default
// game's is left as it was; a game the server does not have is refused, saying how to create it.
import t from 'tap'
import { buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'
import { runImport } from '../../helpers/php-import.js'
import { makePhpDatabase, phpDialectFor } from '../../fixtures/php-database.js'
import { phpRows } from '../../fixtures/php-rows.js'
import type { Db } from '../../../db/types.js'

const MYSQL_URL = process.env.TEST_MYSQL_URL
const TABLES = ['users', 'leaderboard_entries', 'cloud_saves', 'remote_configs', 'news', 'gift_codes'] as const

async function counts(db: Db): Promise<Record<string, number>> {
  const counted: Record<string, number> = {}
  for (const table of TABLES) {
    const row = await db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    counted[table] = Number(row.n)
  }
  return counted
}

eachDialect(t, async (t, dialect) => {
  t.test(`into a second game on ${dialect}, the default game untouched`, async (t) => {
    const data = phpRows()
    const from = await makePhpDatabase(t, phpDialectFor(dialect), data, MYSQL_URL)
    const dbEnv = await freshDatabase(t, dialect)
    const ctx = await buildTestApp(t, dialect, { dbEnv })
    await ctx.app.ready()
    // The default game holds a player of its own before the import.
    const own = await ctx.call({ method: 'POST', url: '/user-management/signup', payload: { type: 'ANONYMOUS' } })
    t.equal(own.statusCode, 201)
    const second = await addGame(ctx, 'second')
    const defaultBefore = await counts(ctx.app.db)
    const secondBefore = await counts(second.db)
    t.equal(secondBefore.users, 0, 'the new game has no players')

    const unknown = await runImport(['--from', from, '--game', 'nope'], dbEnv)
    t.equal(unknown.status, 1)
    t.match(unknown.stderr, /no game 'nope': create it first \(POST \/api\/v1\/admin\/games/)
    const badId = await runImport(['--from', from, '--game', 'Not An Id'], dbEnv)
    t.equal(badId.status, 2)
    t.match(badId.stderr, /--game "Not An Id" is not a game id/)

    const dry = await runImport(['--from', from, '--game', 'second', '--dry-run'], dbEnv)
    t.equal(dry.status, 0, dry.stderr)
    t.same(dry.counts.users, [4, 3, 0, 1], 'dry run: would copy 3 users')
    t.same(await counts(second.db), secondBefore, 'the dry run wrote nothing')

    const run = await runImport(['--from', from, '--game', 'second'], dbEnv)
    t.equal(run.status, 0, run.stderr)
    t.match(run.stdout, /into the game second of Outpost's/)
    t.same(run.counts.users, [4, 3, 0, 1])
    t.same(run.counts.leaderboard, [4, 3, 0, 1])
    const after = await counts(second.db)
    t.equal(after.users, 3, "the second game's players")
    t.equal(after.leaderboard_entries, 3)
    t.equal(after.cloud_saves, 2)
    t.equal(after.remote_configs, 2)
    t.equal(after.news, 2)
    t.equal(after.gift_codes, 2)
    t.same(await counts(ctx.app.db), defaultBefore, 'the default game is untouched')
    const alice = await second.db
      .selectFrom('users')
      .select('username')
      .where('id', '=', String(data.alice.id))
      .executeTakeFirst()
    t.equal(alice?.username, 'alice', 'alice kept her id, in the second game')
    const inDefault = await ctx.app.db
      .selectFrom('users')
      .select('id')
      .where('id', '=', String(data.alice.id))
      .executeTakeFirst()
    t.equal(inDefault, undefined, 'and not in the default game')

    const again = await runImport(['--from', from, '--game', 'second'], dbEnv)
    t.equal(again.status, 0)
    t.same(again.counts.users, [4, 0, 3, 1], 'a second run copies nothing again')
  })
})
