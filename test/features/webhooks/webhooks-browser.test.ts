import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { chromiumSkip, launchChromium } from '../../helpers/browser.js'
import { startReceiver } from '../../helpers/receiver.js'
import { PASSWORD, SHOTS, STEP_MS, addOperator, adminApi, startServer } from '../../helpers/console-server.js'

const fingerprint = (url: string) => createHash('sha256').update(url).digest('hex').slice(0, 8)

/**
 * The Webhooks page in chromium against the real server: an owner creates a webhook pointing at a
 * receiver in the test, copies the secret shown once, sends a test event and sees it delivered; the
 * URL shows masked, an edit keeps it, a dead endpoint reads "failing" and its delivery "retrying";
 * the table fits a 1280 px screen and stacks on a 390 px one.
 */
t.test('the Webhooks page in chromium', { skip: chromiumSkip, timeout: 180_000 }, async (t) => {
  const { base, env } = await startServer(t, { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_POLL_INTERVAL_MS: '200' })
  addOperator(env, 'olivia', 'owner')

  const receiver = await startReceiver(t)
  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
  context.setDefaultTimeout(STEP_MS)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (error) => problems.push(error.message))

  await page.goto(`${base}/console/`)
  await page.getByLabel('Username').fill('olivia')
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('link', { name: 'Webhooks', exact: true }).click()
  await page.getByRole('heading', { name: 'Webhooks' }).waitFor()

  await page.getByRole('button', { name: 'New webhook' }).click()
  await page.getByLabel('URL').fill(receiver.url)
  await page.getByLabel('Description').fill('Ops channel')
  await page.getByLabel('Format').selectOption('standard')
  await page.getByLabel(/^crash\.group_created/).check()
  await page.getByRole('button', { name: 'Save' }).click()
  const secretText = page.getByTestId('webhook-secret')
  await secretText.waitFor()
  const secret = (await secretText.textContent()) ?? ''
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'the secret is shown once, whole')
  await page.getByRole('button', { name: 'Copy secret' }).click()
  t.equal(
    await page.evaluate(() => (globalThis as any).navigator.clipboard.readText()),
    secret,
    'the copy button copies it',
  )
  await page.getByRole('button', { name: 'I have kept it' }).click()
  t.equal(await page.getByTestId('webhook-secret').count(), 0, 'and then it is gone')
  const row = page.getByRole('row', { name: /Ops channel/ })
  await row.waitFor()
  t.match(await row.textContent(), /whsec_…/, 'the list shows it masked')
  const masked = `${new URL(receiver.url).origin}/****`
  const name = `webhook #${fingerprint(receiver.url)}`
  t.match(await row.textContent(), masked, 'and the URL masked')
  t.notOk((await row.textContent())?.includes('/hook'), 'the path is not shown')

  // An edit that leaves the URL empty keeps the stored one.
  await page.getByRole('button', { name: `Edit ${name}` }).click()
  t.equal(await page.getByLabel('URL').inputValue(), '', 'the form does not hold the masked URL')
  await page.getByLabel('Description').fill('Ops channel, edited')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByRole('row', { name: /Ops channel, edited/ }).waitFor()

  await page.getByRole('button', { name: `Send a test to ${name}` }).click()
  await receiver.waitFor(1, 20_000)
  const got = receiver.received[0]!
  const body = JSON.parse(got.body)
  t.equal(body.type, 'webhook.test')
  t.doesNotThrow(
    () =>
      new Webhook(secret).verify(got.body, {
        'webhook-id': String(got.headers['webhook-id']),
        'webhook-timestamp': String(got.headers['webhook-timestamp']),
        'webhook-signature': String(got.headers['webhook-signature']),
      }),
    'signed with the secret the console showed',
  )

  // A receiver that fails: the list reads "failing", its delivery "retrying" with its next try.
  const dead = await startReceiver(t, '/api/webhooks/998877665544332211/S3cr3t-t0ken-of-the-channel')
  for (let i = 0; i < 5; i++) dead.answers.push(500)
  const deadHook = await adminApi(base, 'POST', '/webhooks', {
    url: dead.url,
    events: ['webhook.test', 'crash.group_created', 'crash.group_regressed', 'leaderboard.new_leader'],
    format: 'discord',
    description: 'The #live-ops channel of the studio, on Discord',
  })
  t.equal(deadHook.status, 201)
  await adminApi(base, 'POST', `/webhooks/${deadHook.body.id}/test`)
  await dead.waitFor(1, 20_000)
  const deadRow = page.getByRole('row', { name: /live-ops/ })
  const until = Date.now() + 15_000
  while (!/failing/.test((await deadRow.textContent().catch(() => '')) ?? '') && Date.now() < until) {
    await page.reload()
    await new Promise((r) => setTimeout(r, 300))
  }
  t.match(await deadRow.textContent(), /failing.*1 failed in a row.*1 waiting/, 'the dead endpoint reads failing')
  t.notOk((await page.content()).includes('S3cr3t-t0ken'), 'the token is nowhere on the page')

  await page.setViewportSize({ width: 1280, height: 900 })
  const fits = await page.evaluate(() => {
    const { document } = globalThis as any
    const wrap = document.querySelector('.table-wrap')
    const last = [...wrap.querySelectorAll('th')].at(-1).getBoundingClientRect()
    return {
      scroll: wrap.scrollWidth,
      client: wrap.clientWidth,
      lastRight: last.right,
      wrapRight: wrap.getBoundingClientRect().right,
    }
  })
  t.ok(fits.scroll <= fits.client, `no horizontal scroll at 1280 px (${fits.scroll} ≤ ${fits.client})`)
  t.ok(fits.lastRight <= fits.wrapRight, 'the Actions column is whole')
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, 'webhooks-1280.png'), fullPage: true })
  await page.setViewportSize({ width: 390, height: 844 })
  const narrow = await page.evaluate(() => {
    const { document } = globalThis as any
    const wrap = document.querySelector('.table-wrap')
    return { page: document.documentElement.scrollWidth, wrap: wrap.scrollWidth, client: wrap.clientWidth }
  })
  t.ok(narrow.page <= 390 && narrow.wrap <= narrow.client, `nothing wider than 390 px (${JSON.stringify(narrow)})`)
  const rotate = page.getByRole('button', { name: `Rotate the secret of webhook #${deadHook.body.urlFingerprint}` })
  const box = (await rotate.boundingBox())!
  t.ok(box.x >= 0 && box.x + box.width <= 390, 'the row actions are on the screen')
  await page.screenshot({ path: join(SHOTS, 'webhooks-390.png'), fullPage: true })
  await page.setViewportSize({ width: 1280, height: 900 })

  await page.goto(`${base}/console/#/webhooks/${deadHook.body.id}`)
  await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor()
  const retrying = page.getByRole('row', { name: /webhook\.test/ })
  t.match(
    await retrying.textContent(),
    /retrying.*500.*1.*UTC/,
    'a failed delivery waiting for its retry reads retrying',
  )
  t.notMatch(await retrying.textContent(), /pending/)

  await page.goto(`${base}/console/#/webhooks`)
  await page.getByRole('link', { name: masked }).click()
  await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor()
  const delivered = page.getByRole('row', { name: /webhook\.test/ })
  const deadline = Date.now() + 15_000
  while (!/delivered/.test((await delivered.textContent().catch(() => '')) ?? '') && Date.now() < deadline) {
    await page.getByRole('button', { name: 'Refresh' }).click()
    await new Promise((r) => setTimeout(r, 300))
  }
  t.match(await delivered.textContent(), /delivered.*200/, 'the delivery shows delivered with its 200')
  await page.getByRole('button', { name: /^Retry delivery/ }).click()
  await receiver.waitFor(2, 20_000)
  t.equal(receiver.received.length, 2, 'retry sent it again')
  await page.screenshot({ path: join(SHOTS, 'webhook-deliveries.png'), fullPage: true })
  t.same(problems, [], 'no script error')
})
