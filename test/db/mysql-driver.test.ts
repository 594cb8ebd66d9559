import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Deadlines } from '../../db/pool-bounds.js'

/** The one timer behind every MySQL wait bound (statements and pool waits; see db/mysql-driver.ts). */
t.test('a wait expires once, after its bound and at most a twentieth of it late; a finished one never', async (t) => {
  const deadlines = new Deadlines(200)
  t.teardown(() => deadlines.stop())
  const started = performance.now()
  const expired: Array<[string, number]> = []
  const slow = deadlines.start(() => expired.push(['slow', performance.now() - started]))
  const quick = deadlines.start(() => expired.push(['quick', performance.now() - started]))
  await sleep(50)
  t.equal(deadlines.finish(quick), true, 'a wait that ended in time is finished')
  await sleep(400)
  t.same(
    expired.map(([name]) => name),
    ['slow'],
    'only the wait still open expired, once',
  )
  const [, ms] = expired[0]!
  // 10 ms is the sweep (200 / 20); the rest allows for a busy test machine.
  t.ok(ms >= 200 && ms < 200 + 10 + 100, `expired after ${ms.toFixed(0)} ms (bound 200 ms)`)
  t.equal(deadlines.finish(slow), false, 'an expired wait reports that its caller was already answered')
})

t.test('after a sweep found no wait open (and stopped its timer), the next wait still expires', async (t) => {
  const deadlines = new Deadlines(100)
  t.teardown(() => deadlines.stop())
  let expired = 0
  deadlines.start(() => expired++)
  await sleep(250)
  t.equal(expired, 1, 'the first wait expired (the sweep then found nothing open and stopped)')
  const started = performance.now()
  let ms = 0
  deadlines.start(() => (ms = performance.now() - started))
  await sleep(250)
  t.ok(ms >= 100 && ms < 100 + 5 + 100, `a later wait expires too, after ${ms.toFixed(0)} ms (bound 100 ms)`)
})
