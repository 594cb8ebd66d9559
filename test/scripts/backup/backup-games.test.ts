// `npm run backup -- FILE` with several games: the default game's database goes to FILE and each other
// game's beside it, where a server whose DB_PATH is FILE looks for it; the output names every file, and
// a server started on the copy finds each game's players in that game, and its keys.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import t from 'tap'
import type { Db } from '../../../db/types.js'
import { exportAccount, importAnonymousUser } from '../../../features/users/service.js'
import { API_KEY, buildTestApp } from '../../helpers/app.js'
import { addGame } from '../../helpers/second-game.js'
import { main } from '../../../scripts/backup/index.js'

const noEnv = join(tmpdir(), 'no-such-outpost.env')

t.test('every game is backed up, each file named, and the copy serves every game', async (t) => {
  // The games are the test's own, counted in the output and in the copy: no bystander (test/helpers/bystander.ts).
  const ctx = await buildTestApp(t, 'sqlite', { bystander: false })
  const second = await addGame(ctx, 'second')
  const third = await addGame(ctx, 'third-one')
  // Each game's player, written into that game's database through the users feature.
  const player = async (db: Db, name: string) => {
    const user = { id: randomUUID(), name, anonymousToken: randomUUID(), createdAt: ctx.clock.now() }
    t.match(await importAnonymousUser(db, user), { status: 'copied' })
    return user
  }
  const ann = await player(ctx.app.db, 'ann')
  const ben = await player(second.db, 'ben')
  const cyd = await player(third.db, 'cyd')

  const dir = mkdtempSync(join(tmpdir(), 'outpost-backup-games-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const target = join(dir, 'outpost-2026-11-25.db')
  let out = ''
  let err = ''
  const io = { out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } }
  const code = await main([target], { API_KEY, DB_DRIVER: 'sqlite', DB_PATH: ctx.env.DB_PATH }, io, noEnv)
  t.equal(code, 0, err)
  const games = join(dir, 'outpost-2026-11-25.games')
  for (const file of [target, join(games, 'second.db'), join(games, 'third-one.db')]) {
    t.ok(existsSync(file), `${file} written`)
    t.equal(statSync(file).mode & 0o777, 0o600, 'private')
    t.match(out, file, 'the output names it')
  }
  t.match(out, /Backed up game second, .*second\.db, to .*outpost-2026-11-25\.games\/second\.db: \d+ pages/)
  t.match(
    out,
    /3 games backed up: restore .*outpost-2026-11-25\.db as DB_PATH and .*outpost-2026-11-25\.games as the folder beside it/,
  )

  // A second backup into the same FILE is refused: nothing is written over.
  let again = ''
  const refused = await main(
    [target],
    { API_KEY, DB_DRIVER: 'sqlite', DB_PATH: ctx.env.DB_PATH },
    {
      out: { write: () => true },
      err: { write: (s: string) => (again += s) },
    },
    noEnv,
  )
  t.equal(refused, 1)
  t.match(again, /exists: name a new file/)

  // The copy, served: each game's player is in that game's database only, and each key is its game's.
  await ctx.app.close()
  const restored = await buildTestApp(t, 'sqlite', {
    dbEnv: { DB_DRIVER: 'sqlite', DB_PATH: target },
    bystander: false,
  })
  await restored.app.ready()
  t.same(
    restored.app.games.list().map((g) => g.id),
    ['default', 'second', 'third-one'],
    'the games are listed in the copy',
  )
  const served = Object.fromEntries(restored.app.games.list().map((g) => [g.id, g]))
  t.equal(restored.app.games.forKey(second.key)?.id, 'second', "second's key is second's")
  t.equal(restored.app.games.forKey(third.key)?.id, 'third-one', "third-one's key is third-one's")
  for (const [id, user, others] of [
    ['default', ann, [ben, cyd]],
    ['second', ben, [ann, cyd]],
    ['third-one', cyd, [ann, ben]],
  ] as const) {
    const db = served[id]!.db
    t.match(await exportAccount(db, user.id), { username: user.name }, `${id}: ${user.name} is there`)
    for (const other of others) {
      t.equal(await exportAccount(db, other.id), undefined, `${id}: ${other.name} is not`)
    }
  }
})
