// `npm run migrate` with several games: every game's database is brought to the latest migration (a
// game whose database was never made gets it), and an erasure that stopped half-way is finished.
import t from 'tap'
import { eachDialect, freshDatabase, testConfig } from '../../helpers/app.js'
import { MIGRATIONS } from '../../../app.js'
import { createDb } from '../../../db/index.js'
import { migrateToLatest } from '../../../db/migrate.js'
import { closeGameDb, createGameStore, openGameDb } from '../../../db/games.js'
import type { Db } from '../../../db/types.js'
import { ensureDefaultGame, insertGame, markGameDeleted, readSnapshot } from '../../../platform/games/store.js'
import { migrateEveryGame } from '../../../scripts/migrate/index.js'

/** The migrations a game's database has applied, or the error reading them gave. */
async function applied(base: Db, config: ReturnType<typeof testConfig>, id: string): Promise<number | string> {
  const db = openGameDb(base, config, id)
  try {
    const rows = await db
      .selectFrom('kysely_migration' as 'users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow()
    return Number(rows.n)
  } catch (error) {
    return (error as Error).message
  } finally {
    await closeGameDb(db)
  }
}

eachDialect(t, async (t, dialect) => {
  const config = testConfig(await freshDatabase(t, dialect))
  const db = createDb(config)
  t.teardown(() => db.destroy())
  await migrateToLatest(db, MIGRATIONS)
  await ensureDefaultGame(db, Date.now())
  // `fresh` has its row and no database yet (as after a database restored without its games'
  // databases); `going` was being erased when the server stopped.
  await insertGame(db, 'fresh', 'Fresh', Date.now())
  await insertGame(db, 'going', 'Going', Date.now())
  await createGameStore(db, config, 'going', MIGRATIONS)
  await markGameDeleted(db, 'going', Date.now())
  t.equal(await applied(db, config, 'going'), Object.keys(MIGRATIONS).length, 'the erased game still had its database')

  let out = ''
  await migrateEveryGame(db, config, { out: { write: (text: string) => (out += text) } })
  t.match(out, /^Database is up to date\n/, 'the default game first, in the words of the command before games')
  t.match(out, /Game going: the erasure that stopped half-way is finished/)
  t.match(out, /Game fresh: applied 0001_/)
  t.equal(await applied(db, config, 'fresh'), Object.keys(MIGRATIONS).length, "the new game's database, migrated")
  t.not(await applied(db, config, 'going'), Object.keys(MIGRATIONS).length, "the erased game's database is gone")
  t.same((await readSnapshot(db)).games.map((g) => g.id).sort(), ['default', 'fresh'], "the erased game's row is gone")
  t.equal(
    Number(
      (
        await db
          .selectFrom('games')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
    2,
  )

  out = ''
  await migrateEveryGame(db, config, { out: { write: (text: string) => (out += text) } })
  t.equal(out, 'Database is up to date\nGame fresh: up to date\n', 'run again, nothing to do in any game')
})
