import t from 'tap'
import { API_KEY, eachDialect, freshDatabase } from '../../helpers/app.js'
import { adminApi, startServer, type Server } from '../../helpers/server-process.js'

/**
 * Activity in real server processes on one database: two servers see the same players on the same
 * day (sign-up on one, sign-in and a submit on the other, then again on the first), each batches its
 * marks in memory and writes them at its shutdown; each player counts once.
 */

async function appApi(server: Server, path: string, body: unknown, token?: string) {
  const res = await fetch(`${server.base}/api/v1/app${path}`, {
    method: 'POST',
    headers: {
      'x-api-key': API_KEY,
      'content-type': 'application/json',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, any>
}

async function stop(server: Server) {
  const exited = new Promise((resolve) => server.child.once('exit', resolve))
  server.child.kill('SIGTERM')
  return exited
}

eachDialect(t, async (t, dialect) => {
  t.test('two server processes mark the same players on one day: each player counts once', async (t) => {
    const dbEnv = await freshDatabase(t, dialect)
    const [a, b] = await Promise.all([startServer(t, dbEnv, {}), startServer(t, dbEnv, {})])
    const players = 12
    for (let i = 0; i < players; i++) {
      const user = await appApi(a!, '/user-management/signup', { type: 'ANONYMOUS', username: `Twice${i}` })
      const signedIn = await appApi(b!, '/user-management/signin', {
        type: 'ANONYMOUS',
        anonymousToken: user.anonymousToken,
      })
      await appApi(b!, '/leaderboard/submit', { userId: user.userId, score: 10 + i }, signedIn.accessToken)
      await appApi(a!, '/user-management/check-auth', { userId: user.userId }, signedIn.accessToken)
    }
    // Each server writes what it holds when it stops (and no sooner than its flush interval otherwise).
    t.equal(await stop(a!), 0, 'the first server stopped cleanly')
    t.equal(await stop(b!), 0, 'the second server stopped cleanly')

    const reader = await startServer(t, dbEnv, {})
    const counts = await adminApi(reader.base, 'GET', '/analytics/counts')
    t.equal(counts.status, 200)
    t.equal(counts.body.players, players)
    t.equal(counts.body.activeToday, players, 'every player once, though both servers marked each')
  })
})
