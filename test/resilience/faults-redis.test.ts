import { setTimeout as sleep } from 'node:timers/promises'
import t, { type Test } from 'tap'
import { buildApp } from '../../app.js'
import { API_KEY, freshDatabase, testConfig } from '../helpers/app.js'
import { fakeRedis, logLines, timed } from '../helpers/faults.js'

// A Redis that stalls fails open within 100 ms and says so once per outage. The bound
// asserted leaves room for a loaded test machine on top of the 100 ms the contract promises.
const FAIL_OPEN_MS = 100
const SLACK_MS = 150

async function limitedApp(t: Test, redisUrl: string) {
  const log = logLines()
  const dbEnv = await freshDatabase(t, 'sqlite')
  const config = testConfig({
    ...dbEnv,
    RATE_LIMIT_ENABLED: 'true',
    // A bucket of 5 that gains one token a second: the counts below cannot depend on the machine's speed.
    RATE_LIMIT_PER_SECOND: '1',
    RATE_LIMIT_BURST_SECONDS: '5',
    // Each phase below names its own client, so that it starts with a full bucket.
    TRUST_PROXY: '127.0.0.1',
    REDIS_URL: redisUrl,
    LOG_LEVEL: 'info',
  })
  const app = await buildApp({ config, logStream: log.stream })
  t.teardown(() => app.close())
  const address = await app.listen({ host: '127.0.0.1', port: 0 })
  const get = (from = '198.51.100.1') =>
    fetch(`${address}/api/v1/app/nowhere`, { headers: { 'x-api-key': API_KEY, 'x-forwarded-for': from } })
  // The first request of a process pays for starting the HTTP client: not part of what is measured.
  await (await fetch(`${address}/health`)).arrayBuffer()
  const outageLines = () => ({
    warn: log.matching(/rate-limit Redis is not answering/).length,
    info: log.matching(/rate-limit Redis answers again/).length,
  })
  return { get, log, outageLines }
}

/** `count` requests one after the other: their statuses and the slowest time. */
async function burst(get: () => Promise<Response>, count: number) {
  const statuses: number[] = []
  let slowest = 0
  for (let i = 0; i < count; i++) {
    const { ms, value } = await timed(get)
    await value.arrayBuffer()
    statuses.push(value.status)
    slowest = Math.max(slowest, ms)
  }
  return { statuses, slowest }
}

t.test('a Redis that accepts and never answers: requests pass at once, one warning', async (t) => {
  const redis = await fakeRedis(t, { stalled: true })
  const { get, outageLines } = await limitedApp(t, redis.url)
  const { statuses, slowest } = await burst(get, 12)
  t.same(statuses, Array(12).fill(404), 'nothing is limited while the counters cannot be kept')
  t.ok(slowest < FAIL_OPEN_MS + SLACK_MS, `slowest request ${slowest.toFixed(1)} ms`)
  t.comment(`stalled from the start: slowest of 12 requests ${slowest.toFixed(1)} ms`)
  // Several reconnect attempts, each failing its ready check, within this wait.
  await sleep(600)
  await burst(get, 3)
  t.same(outageLines(), { warn: 1, info: 0 }, 'one warning for the whole outage, none per request or reconnect')
})

t.test('a Redis that stalls while in use: requests pass within the bound; counted again once it answers', async (t) => {
  const redis = await fakeRedis(t)
  const { get, outageLines } = await limitedApp(t, redis.url)
  // The client connects in the background, and on a loaded machine the first requests of a process
  // can block the event loop past the command timeout (a real, if short, outage): wait, bounded,
  // until requests are counted and any such blip has ended, and count log lines from there.
  for (let i = 0; i < 100 && (redis.state.commands < 3 || outageLines().warn !== outageLines().info); i++) {
    await (await get()).arrayBuffer()
    await sleep(20)
  }
  t.ok(redis.state.commands >= 3, 'the counters live in Redis')
  const before = outageLines()
  const since = () => ({ warn: outageLines().warn - before.warn, info: outageLines().info - before.info })
  await sleep(1000)

  redis.state.stalled = true
  const during = await burst(get, 12)
  t.same(during.statuses, Array(12).fill(404), 'past the limit of 5, yet nothing is limited while Redis stalls')
  t.ok(during.slowest < FAIL_OPEN_MS + SLACK_MS, `slowest request ${during.slowest.toFixed(1)} ms`)
  t.comment(`stalled while in use: slowest of 12 requests ${during.slowest.toFixed(1)} ms`)
  t.same(since(), { warn: 1, info: 0 }, 'one warning')

  redis.state.stalled = false
  // Bounded wait for the client's reconnect (its backoff grows by 50 ms per attempt).
  for (let i = 0; i < 100 && since().info === 0; i++) await sleep(20)
  t.same(since(), { warn: 1, info: 1 }, 'one line when it answers again')
  await sleep(1000)
  const after = await burst(() => get('198.51.100.2'), 6)
  t.same(after.statuses, [404, 404, 404, 404, 404, 429], 'the limit holds again')
  t.same(since(), { warn: 1, info: 1 }, 'and nothing more is logged')
})
