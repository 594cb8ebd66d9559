import t from 'tap'
import { ADMIN_KEY, API_KEY, buildTestApp, eachDialect, freshDatabase } from '../../helpers/app.js'
import { asBeforeGames } from '../../helpers/before-games.js'
import { bearer, createUser } from '../../fixtures/users.js'
import { unity as saves } from '../../fixtures/cloud-save.js'
import { submit } from '../../fixtures/leaderboard.js'

/**
 * Contract §14: a database from the build before games upgrades into the game `default`, every row,
 * with no change for clients. The database is made as that build left it: the app fills it, then the
 * games migration is taken back (its tables and the audit log's game column gone, its record
 * forgotten). A new start applies it again; the players already installed sign in with their
 * anonymous tokens and sessions, through API_KEY, and find their scores, saves and config.
 */
eachDialect(t, async (t, dialect) => {
  const dbEnv = await freshDatabase(t, dialect)
  // A database from before games holds one game: no bystander (test/helpers/bystander.ts) here.
  const before = await buildTestApp(t, dialect, { dbEnv, bystander: false })
  const player = await createUser(before, { username: 'Old Timer' })
  t.equal((await submit(before, 'default', player.userId, 4242)).statusCode, 200)
  t.equal((await saves.save(before, player, '{"level":9}')).statusCode, 200)
  t.equal(
    (await before.admin({ method: 'PUT', url: '/remote-config/motd', payload: { value: 'welcome back' } })).statusCode,
    200,
  )
  await before.app.close()

  // As the landed build left it: no games, no keys, no game on the audit entries, no roles per game.
  await asBeforeGames(dbEnv)

  const after = await buildTestApp(t, dialect, { dbEnv, bystander: false })
  const { call, admin } = after
  const signin = await call({
    method: 'POST',
    url: '/user-management/signin',
    payload: { type: 'ANONYMOUS', anonymousToken: player.anonymousToken },
  })
  t.equal(signin.statusCode, 200, 'the installed game signs its player in with the anonymous token it kept')
  t.equal(signin.json().userId, player.userId)
  const check = await call({
    method: 'POST',
    url: '/user-management/check-auth',
    payload: { userId: player.userId, sessionToken: player.accessToken },
  })
  t.equal(check.statusCode, 200, 'a session from before the upgrade still holds')
  const top = await call({ method: 'GET', url: '/leaderboard/top?limit=5', headers: bearer(player) })
  t.match(top.json().entries, [{ userId: player.userId, score: 4242 }], 'the score is on the board')
  const load = await saves.load(after, player)
  t.match(load.json(), { found: true }, 'the save is there')
  t.match(load.body, /level/)
  t.same((await call({ method: 'GET', url: '/remote-config/all' })).json().configs, { motd: 'welcome back' })

  const games = after.app.games.list()
  t.same(
    games.map((g) => g.id),
    ['default'],
    'the database holds the one game default',
  )
  t.equal(after.app.games.forKey(API_KEY)?.id, 'default', 'API_KEY is a key of default')
  const audit = await admin({ method: 'GET', url: '/audit?limit=100' })
  t.ok(audit.json().items.length > 0, 'the audit trail from before the upgrade is there')
  t.ok(
    audit.json().items.every((item: { game: string }) => item.game === 'default'),
    'entries written before games are the default game’s',
  )
  t.equal(
    (await after.app.inject({ url: '/api/v1/admin/users', headers: { 'x-admin-key': ADMIN_KEY } })).statusCode,
    200,
    'the un-prefixed admin routes address default, as before',
  )
})
