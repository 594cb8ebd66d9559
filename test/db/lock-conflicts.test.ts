import t from 'tap'
import { APP, API_KEY, assertError, buildTestApp } from '../helpers/app.js'
import { retryOnConflict } from '../../db/transaction.js'
import { isDatabaseUnavailable } from '../../db/dialect.js'

/** What mysql2 throws when InnoDB picked the statement's transaction as a deadlock victim. */
function deadlock() {
  return Object.assign(new Error('Deadlock found when trying to get lock; try restarting transaction'), {
    code: 'ER_LOCK_DEADLOCK',
    errno: 1213,
  })
}

t.test('a deadlocked statement is tried again until it goes through, past any fixed count of attempts', async (t) => {
  let attempts = 0
  const result = await retryOnConflict(async () => {
    if (++attempts <= 12) throw deadlock()
    return 'done'
  })
  t.equal(result, 'done')
  t.equal(attempts, 13)
})

t.test(
  'a conflict that outlasts the bound is thrown once the bound has passed, and counts as unavailable',
  async (t) => {
    let attempts = 0
    const started = performance.now()
    const error = await retryOnConflict(async () => {
      attempts++
      throw deadlock()
    }, 300).catch((e: unknown) => e)
    const ms = performance.now() - started
    t.equal((error as { errno?: number }).errno, 1213)
    t.ok(attempts > 4, `tried again and again (${attempts})`)
    t.ok(ms >= 150 && ms < 300 + 500, `within the bound (${ms.toFixed(0)} ms)`)
    t.ok(isDatabaseUnavailable(error), 'answered as the database being unavailable')
    t.notOk(isDatabaseUnavailable(new Error('something else')))
  },
)

t.test('errors other than lock conflicts are not tried again', async (t) => {
  let attempts = 0
  const error = await retryOnConflict(async () => {
    attempts++
    throw Object.assign(new Error('Duplicate entry'), { errno: 1062 })
  }).catch((e: unknown) => e)
  t.equal((error as { errno?: number }).errno, 1062)
  t.equal(attempts, 1)
})

t.test('a lock conflict that reaches the error handler is 503 with Retry-After, never 500', async (t) => {
  const ctx = await buildTestApp(t, 'sqlite')
  ctx.app.get(`${APP}/__test/deadlock`, { schema: { hide: true } }, async () => {
    throw deadlock()
  })
  const res = await ctx.app.inject({ method: 'GET', url: `${APP}/__test/deadlock`, headers: { 'x-api-key': API_KEY } })
  assertError(t, res, 503, 'SERVICE_UNAVAILABLE')
  t.equal(res.headers['retry-after'], '5')
})
