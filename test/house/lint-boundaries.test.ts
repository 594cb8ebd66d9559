import { readFileSync } from 'node:fs'
import t from 'tap'
import { ESLint } from 'eslint'

/**
 * The import boundaries of ARCHITECTURE.md, "Boundaries and rules", enforced by the project's ESLint config: a feature
 * reaches another only through its service.ts (or its schemas.ts); platform/, db/ and config.ts never
 * import a feature.
 * Each case lints one line of source as if it stood at the given path.
 */
const eslint = new ESLint({ cwd: process.cwd() })

async function importErrors(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`${source}\nexport {}\n`, { filePath })
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message)
}

const cases: Array<[string, string, boolean]> = [
  ['features/authentication/probe.ts', "import { SYSTEM_TEMPLATES } from '../email-sending/templates.js'", false],
  ['features/validated-actions/probe.ts', "import { TopPageCache } from '../leaderboard/top-cache.js'", false],
  ['features/gift-codes/probe.ts', "import giftAdmin from '../player-profile/admin.js'", false],
  ['features/gift-codes/probe.ts', "import profile from '../player-profile/index.js'", false],
  ['features/validated-actions/probe.ts', "import { submitScore } from '../leaderboard/service.js'", true],
  ['features/users/probe.ts', "import { ProfileExport } from '../player-profile/schemas.js'", true],
  ['features/validated-actions/probe.ts', "import { AppError } from '../../platform/core/errors.js'", true],
  ['features/validated-actions/probe.ts', "import { rules } from './rules.js'", true],
  ['features/validated-actions/probe.ts', "import type { Db } from '../../db/types.js'", true],
  ['platform/core/probe.ts', "import { findUser } from '../../features/users/service.js'", false],
  ['platform/core/probe.ts', "import { AppError } from './errors.js'", true],
  ['platform/http/probe.ts', "import { findUser } from '../../features/users/service.js'", false],
  ['platform/security/probe.ts', "import { SYSTEM_TEMPLATES } from '../../features/email-sending/templates.js'", false],
  [
    'platform/observability/metrics/probe.ts',
    "import { submitScore } from '../../../features/leaderboard/service.js'",
    false,
  ],
  ['platform/observability/metrics/probe.ts', "import { AppError } from '../../core/errors.js'", true],
  ['platform/observability/metrics/probe.ts', "import type { Db } from '../../../db/types.js'", true],
  ['platform/content/probe.ts', "import { secretChecker } from '../security/secrets.js'", true],
  ['platform/schemas/probe.ts', "import { NAME_PATTERN } from './common.js'", true],
  ['platform/schemas/probe.ts', "import { UserSchema } from '../../features/users/schemas.js'", false],
  ['features/leaderboard/probe.ts', "import { GAME_RIGHTS } from '../../platform/security/roles.js'", true],
  ['features/leaderboard/probe.ts', "import { ContentCache } from '../../platform/content/content-cache.js'", true],
  // A feature folder nobody listed anywhere: the same rules hold for it at once.
  ['features/brand-new/probe.ts', "import { TopPageCache } from '../leaderboard/top-cache.js'", false],
  ['features/brand-new/probe.ts', "import { submitScore } from '../leaderboard/service.js'", true],
  ['features/brand-new/deeper/probe.ts', "import { TopPageCache } from '../../leaderboard/top-cache.js'", false],
  ['features/leaderboard/probe.ts', "import { helper } from '../brand-new/helper.js'", false],
  ['scripts/import-php/probe.ts', "import { importScore } from '../../features/leaderboard/service.js'", true],
  ['scripts/import-php/probe.ts', "import { TopPageCache } from '../../features/leaderboard/top-cache.js'", false],
  ['db/probe.ts', "import { AppError } from '../platform/core/errors.js'", false],
  ['db/probe.ts', "import { findUser } from '../features/users/service.js'", false],
  ['db/probe.ts', "import type { Database } from './types.js'", true],
]

for (const [filePath, source, allowed] of cases) {
  t.test(`${filePath}: ${source}`, async (t) => {
    const errors = await importErrors(filePath, source)
    if (allowed) t.same(errors, [], 'allowed')
    else t.equal(errors.length, 1, `refused: ${errors[0] ?? 'nothing said'}`)
  })
}

t.test('every pointer to ARCHITECTURE.md names a section the repository has', async (t) => {
  const read = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8')
  const headings = new Set([...read('ARCHITECTURE.md').matchAll(/^#{1,4} (.+)$/gm)].map((m) => m[1]!.trim()))
  const pointer = /ARCHITECTURE\.md, "([^"]+)"/g
  const files = ['eslint.config.js', 'test/house/lint-boundaries.test.ts', 'test/house/layout.test.ts']
  let seen = 0
  for (const file of files) {
    for (const [, section] of read(file).matchAll(pointer)) {
      seen++
      t.ok(headings.has(section!), `${file}: ARCHITECTURE.md has a section "${section}"`)
    }
  }
  t.ok(seen >= 2, 'the lint config and the tests point to their sections')
  // And what a reader sees: the message of a refused import.
  const [message] = await importErrors(
    'platform/core/probe.ts',
    "import { findUser } from '../../features/users/service.js'",
  )
  const section = /ARCHITECTURE\.md, "([^"]+)"/.exec(message ?? '')?.[1]
  t.ok(section && headings.has(section), `the lint message names an existing section: ${message}`)
})
