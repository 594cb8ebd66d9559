import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { freePort } from '../../../bench/processes.js'
import { chromiumSkip, launchChromium } from '../../helpers/browser.js'

// /docs as a person opens it: the compiled server, headless chromium, the page's own console.
// Outpost's name, no error and no Content-Security-Policy violation, the game API before the admin API.

const SERVER = fileURLToPath(new URL('../../../server.js', import.meta.url))

t.test('/docs in a browser: Outpost, no console error, no CSP violation', { skip: chromiumSkip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-docs-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  const child = spawn(process.execPath, [SERVER], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? '',
      API_KEY: 'k'.repeat(20),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  t.teardown(() => void child.kill('SIGKILL'))
  const base = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`)
    if (Date.now() > deadline) throw new Error(`the server did not start within 60 s: ${stderr}`)
    const up = await fetch(`${base}/health`, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    )
    if (up) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }

  const browser = await launchChromium()
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const errors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text())
  })
  page.on('pageerror', (error) => errors.push(String(error)))
  // Collected in the page (as a string: this file is compiled without the DOM's types).
  await page.addInitScript({
    content:
      'window.violations = []; document.addEventListener("securitypolicyviolation", ' +
      '(event) => window.violations.push(event.violatedDirective + " " + event.blockedURI))',
  })
  await page.goto(`${base}/docs`)
  await page.waitForSelector('.opblock-tag', { timeout: 60_000 })
  // Swagger UI renders in steps after the document arrives: let it finish before counting.
  await page.waitForTimeout(1000)

  t.same(errors, [], 'no console error')
  t.same(await page.evaluate('window.violations'), [], 'no CSP violation')
  t.equal(await page.title(), 'Outpost API')
  t.equal((await page.locator('.info .title').innerText()).split('\n')[0]!.trim(), 'Outpost', 'the heading')
  const logo = await page.locator('.topbar img').getAttribute('src')
  t.match(Buffer.from(logo!.split(',')[1]!, 'base64').toString(), />Outpost</, "the top bar shows Outpost's name")
  const tags = (await page.locator('.opblock-tag').allInnerTexts()).map((text) => text.split('\n')[0]!.trim())
  t.equal(tags[0], 'Authentication', 'the game API first')
  t.match(await page.locator('.opblock-tag').first().innerText(), /Game API/, 'the section says whose API it is')
})
