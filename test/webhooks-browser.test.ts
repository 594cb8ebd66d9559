import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { chromiumSkip, launchChromium } from './helpers/browser.js'
import { startReceiver } from './helpers/receiver.js'
import { PASSWORD, SHOTS, STEP_MS, addOperator, startServer } from './helpers/console-server.js'

/**
 * The Webhooks page in chromium against the real server: an owner creates a webhook pointing at a
 * receiver in the test, copies the secret shown once, sends a test event and sees it delivered.
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

  await page.getByRole('button', { name: `Send a test to ${receiver.url}` }).click()
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

  await page.getByRole('link', { name: receiver.url }).click()
  await page.getByRole('heading', { name: 'Webhook deliveries' }).waitFor()
  const delivered = page.getByRole('row', { name: /webhook\.test/ })
  const until = Date.now() + 15_000
  while (!/delivered/.test((await delivered.textContent().catch(() => '')) ?? '') && Date.now() < until) {
    await page.getByRole('button', { name: 'Refresh' }).click()
    await new Promise((r) => setTimeout(r, 300))
  }
  t.match(await delivered.textContent(), /delivered.*200/, 'the delivery shows delivered with its 200')
  await page.getByRole('button', { name: /^Retry delivery/ }).click()
  await receiver.waitFor(2, 20_000)
  t.equal(receiver.received.length, 2, 'retry sent it again')
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, 'webhook-deliveries.png'), fullPage: true })
  t.same(problems, [], 'no script error')
})
