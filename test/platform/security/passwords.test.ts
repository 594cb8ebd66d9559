import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { TEST_HASH_PARAMS, withProductionHashes } from '../../helpers/app.js'
import {
  DUMMY_HASH,
  dummyHash,
  hashParams,
  hashPassword,
  needsRehash,
  PASSWORD_PARAMS,
  verifyPassword,
} from '../../../platform/security/passwords.js'

/**
 * The hash parameters: production strength in every server process, cheaper ones only in the test
 * suite's own process (helpers/app.ts), and whichever is in force, an unknown account still pays for
 * a hash of the same cost.
 */

const root = fileURLToPath(new URL('../../../../', import.meta.url))

t.test("the server's parameters are OWASP's minimum, and nothing outside the tests changes them", async (t) => {
  t.same(PASSWORD_PARAMS, { N: 2 ** 15, r: 8, p: 3 })
  const module = join(root, 'dist/platform/security/passwords.js')
  const fresh = execFileSync(process.execPath, [
    '--input-type=module',
    '-e',
    `const m = await import(${JSON.stringify(module)}); process.stdout.write(JSON.stringify(m.hashParams()))`,
  ]).toString()
  t.same(JSON.parse(fresh), PASSWORD_PARAMS, 'a process that did not ask for others hashes at production strength')
  const callers: string[] = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) {
        if (!['node_modules', 'dist', 'test', 'bench', '.git', '.tap', 'console'].includes(entry.name)) walk(path)
      } else if (entry.name.endsWith('.ts') && readFileSync(path, 'utf8').includes('useHashParams(')) {
        callers.push(relative(root, path))
      }
    }
  }
  walk(root)
  t.same(callers, ['platform/security/passwords.ts'], 'only its own definition: no server code calls useHashParams')
})

t.test("the suite's parameters: real hashes, cheaper; production ones where a test asks", async (t) => {
  t.same(hashParams(), TEST_HASH_PARAMS)
  const cheap = await hashPassword('correct horse')
  t.match(cheap, /^scrypt\$1024\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/)
  t.ok(await verifyPassword('correct horse', cheap))
  t.notOk(await verifyPassword('correct horse!', cheap))
  t.notOk(needsRehash(cheap))
  t.ok(needsRehash(cheap, PASSWORD_PARAMS), 'a server would upgrade it on the next sign-in')

  await t.test('withProductionHashes', async (t) => {
    withProductionHashes(t)
    t.same(hashParams(), PASSWORD_PARAMS)
    t.match(await hashPassword('x'), /^scrypt\$32768\$8\$3\$/)
    t.equal(await dummyHash(), DUMMY_HASH, 'an unknown account is checked against the stored dummy')
  })
  t.same(hashParams(), TEST_HASH_PARAMS, 'and back after it')
})

t.test(
  "the dummy follows the parameters in force: an unknown account's check costs what a real one does",
  async (t) => {
    const dummy = await dummyHash()
    t.match(dummy, /^scrypt\$1024\$8\$1\$/)
    t.notOk(needsRehash(dummy))
    t.equal(await dummyHash(), dummy, 'made once')
    for (const guess of ['', 'password', DUMMY_HASH]) t.notOk(await verifyPassword(guess, dummy))
  },
)
