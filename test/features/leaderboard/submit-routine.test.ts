// The one-round-trip submit on the database servers: a first, an improving and an unchanged submit
// are each one statement, and a database restored without the routine still takes submits (the
// statements of submit.ts) while the routine is created again, which the log is told, after which
// they are one again.
import t from 'tap'
import { sql } from 'kysely'
import { buildTestApp, eachDialect, stopBackgroundWork } from '../../helpers/app.js'
import { createUser } from '../../fixtures/users.js'
import { createBoard, submit } from '../../fixtures/leaderboard.js'
import { watchStatements } from '../../../db/statements.js'
import { supportsRoutines } from '../../../db/dialect.js'

eachDialect(t, async (t, dialect) => {
  const ctx = await buildTestApp(t, dialect)
  await stopBackgroundWork(ctx.app)
  const db = ctx.app.db
  const counted = async (work: () => Promise<{ statusCode: number; body: string; json(): unknown }>) => {
    let n = 0
    const stop = watchStatements(db, () => n++)
    try {
      const response = await work()
      t.equal(response.statusCode, 200, response.body)
      return { n, body: response.json() }
    } finally {
      stop()
    }
  }
  await createBoard(ctx, 'routine')
  const [a, b] = [await createUser(ctx), await createUser(ctx)]
  await submit(ctx, 'routine', b.userId, 1000)

  if (!supportsRoutines(db)) {
    t.equal(dialect, 'sqlite', 'only SQLite keeps no routines')
    return
  }

  t.test('first, improving and unchanged submits: one statement each', async (t) => {
    const first = await counted(() => submit(ctx, 'routine', a.userId, 10))
    t.match(first, { n: 1, body: { score: 10, improved: true, position: 2 } })
    const better = await counted(() => submit(ctx, 'routine', a.userId, 500))
    t.match(better, { n: 1, body: { score: 500, improved: true, position: 2 } })
    const same = await counted(() => submit(ctx, 'routine', a.userId, 50))
    t.match(same, { n: 1, body: { score: 500, submittedScore: 50, improved: false, position: 2 } })
    // Taking first place raises leaderboard.new_leader, which the routine leaves to submit.ts: the
    // call answers `lead` and writes nothing, then the statements of a transaction that raises it.
    const lead = await counted(() => submit(ctx, 'routine', a.userId, 2000))
    t.match(lead.body, { score: 2000, improved: true, position: 1 })
    t.ok(lead.n > 1, `first place: the call and then submit.ts's statements (${lead.n})`)
  })

  t.test('a database without the routine: submits go on, and the routine comes back', async (t) => {
    const told: Array<[boolean, string]> = []
    ctx.app.events.on('submitRoutineMissing', (_gameId, restored, message) => void told.push([restored, message]))
    await sql
      .raw(dialect === 'mysql' ? 'drop procedure leaderboard_submit' : 'drop function leaderboard_submit')
      .execute(db)

    const without = await counted(() => submit(ctx, 'routine', a.userId, 3000))
    t.match(without.body, { score: 3000, improved: true, position: 1 }, 'the submit is answered')
    t.ok(without.n > 1, `the statements of submit.ts (${without.n}), after the failed call`)
    for (let i = 0; i < 50 && !told.length; i++) await new Promise((resolve) => setTimeout(resolve, 20))
    t.match(told, [[true, /The database has no leaderboard_submit routine .*: created it again/]], 'the log is told')

    const again = await counted(() => submit(ctx, 'routine', b.userId, 1500))
    t.match(again, { n: 1, body: { score: 1500, improved: true, position: 2 } }, 'one statement again')
  })
})
