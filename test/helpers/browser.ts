import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Debian's chromium (Playwright's own browser download is unreachable on the build machines). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** A tap `skip` value: false when the browser is there, else why the test cannot run. */
export const chromiumSkip: string | false = existsSync(CHROMIUM)
  ? false
  : `${CHROMIUM} is missing: apt-get install -y chromium`

/** Headless chromium; `--no-sandbox` because the tests run as root in containers. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
}
