import { spawn, spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t, { type Test } from 'tap'
import { freePort } from '../../bench/processes.js'
import { anchors, linkTargets } from '../helpers/markdown.js'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')

const README_MAX_BYTES = 12 * 1024
const DOC_PAGES = readdirSync(join(ROOT, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`)
const CHECKED_FILES = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...DOC_PAGES]

t.test('the README stays short', async (t) => {
  const size = statSync(join(ROOT, 'README.md')).size
  t.ok(size <= README_MAX_BYTES, `README.md is ${size} bytes (at most ${README_MAX_BYTES})`)
})

t.test('every page of docs/ is linked from the README', async (t) => {
  const targets = new Set(linkTargets(read('README.md')).map((target) => target.split('#')[0]))
  t.ok(DOC_PAGES.length >= 10, 'the documentation pages are there')
  for (const page of DOC_PAGES) t.ok(targets.has(page), `${page} is linked from the README`)
  for (const file of ['ARCHITECTURE.md', 'CONTRIBUTING.md', 'CHANGELOG.md']) t.ok(targets.has(file), `${file} too`)
})

t.test('no dead relative link or anchor in the documentation', async (t) => {
  let checked = 0
  for (const file of CHECKED_FILES) {
    for (const target of linkTargets(read(file))) {
      if (/^[a-z]+:/i.test(target)) continue // http(s), mailto: not ours to check offline
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const resolved = path === '' ? file : relative(ROOT, join(ROOT, dirname(file), path))
      checked++
      if (!existsSync(join(ROOT, resolved))) {
        t.fail(`${file}: ${target} names a file that does not exist`)
        continue
      }
      if (anchor !== undefined) {
        t.ok(resolved.endsWith('.md'), `${file}: ${target} anchors into a Markdown file`)
        t.ok(anchors(read(resolved)).has(anchor), `${file}: ${target} names a heading of ${resolved}`)
      }
    }
  }
  t.ok(checked > 30, `${checked} links checked`)
})

t.test('the pages the code names exist', async (t) => {
  const files = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? entry.name === 'node_modules'
          ? []
          : files(join(dir, entry.name))
        : /\.(ts|tsx|mjs|js)$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    )
  const sources = ['features', 'platform', 'db', 'scripts', 'bench', 'console/src', 'test'].flatMap(files)
  sources.push('app.ts', 'server.ts', 'config.ts', 'eslint.config.js')
  let named = 0
  for (const file of sources) {
    for (const [page] of read(file).matchAll(/\bdocs\/[\w-]+\.md\b/g)) {
      named++
      t.ok(existsSync(join(ROOT, page)), `${file} names ${page}, which exists`)
    }
  }
  t.ok(named > 0, `${named} references checked`)
})

t.test('the anchor rule is the one GitHub applies', async (t) => {
  const found = anchors('# A page\n## What compat mode allows (`AUTH_MODE=compat`, the default)\n## Notes\n## Notes\n')
  t.same([...found], ['a-page', 'what-compat-mode-allows-auth_modecompat-the-default', 'notes', 'notes-1'])
  t.same(linkTargets('[a](b.md) `[c](d.md)` ![e](f.png)\n```\n[g](h.md)\n```\n'), ['b.md', 'f.png'])
})

t.test('every table has an owner in ARCHITECTURE.md', async (t) => {
  // The platform's tables in db/types.ts, each feature's in the Database it merges from its tables.ts.
  const typeFiles = ['db/types.ts', ...readdirSync(join(ROOT, 'features')).map((f) => `features/${f}/tables.ts`)]
  const tables = typeFiles
    .filter((file) => existsSync(join(ROOT, file)))
    .flatMap((file) => {
      const database = /interface Database \{([\s\S]*?)\n\s*\}/.exec(read(file))?.[1] ?? ''
      return [...database.matchAll(/^\s+(\w+): \w+Table$/gm)].map((m) => m[1]!)
    })
  t.ok(tables.length > 30, `${tables.length} tables in db/types.ts and features/*/tables.ts`)
  const ownership =
    read('ARCHITECTURE.md')
      .split(/^## Table ownership$/m)[1]
      ?.split(/^## /m)[0] ?? ''
  const rows = ownership.split('\n').filter((line) => line.startsWith('| `'))
  for (const table of tables) {
    const owners = rows.filter((row) => row.split('|')[2]?.includes(`\`${table}\``))
    t.equal(owners.length, 1, `${table} has exactly one owner in the table ownership list`)
  }
  for (const row of rows)
    for (const [, named] of row.split('|')[2]!.matchAll(/`(\w+)`/g))
      t.ok(tables.includes(named!), `${named} in the ownership list is a table of the Database type`)
})

/**
 * A copy of the checkout as a newcomer has it after `npm install`: the sources and node_modules
 * (linked), the build (copied: a script run through a link would not know it is the main module),
 * and no `.env` or database yet.
 */
function freshCheckout(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-readme-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const name of readdirSync(ROOT)) {
    if (['.git', '.env', 'data', 'dist', 'test-output'].includes(name)) continue
    symlinkSync(join(ROOT, name), join(dir, name))
  }
  cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true })
  return dir
}

/** The shell blocks of the README's "Your first ten minutes", in order. */
function firstTenMinutes(): string[] {
  const section = /^## Your first ten minutes$([\s\S]*?)(?=^## )/m.exec(read('README.md'))?.[1] ?? ''
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
}

/** What each block must print, in the README's order (a new block needs its line here). */
const EXPECTED: RegExp[] = [
  /"status":"ok"/,
  /"authStatus":"AUTHENTICATED"/,
  /"improved":true[\s\S]*"entries":\[\{"position":1,"userId":"[0-9a-f-]{36}","username":"Ada","score":4200/,
  /"version":1[\s\S]*"found":true,"data":"\{\\"level\\":3,\\"coins\\":120\}"/,
  /"configValue":"Hello from Outpost"[\s\S]*"configKey":"welcome_message","configValue":"Hello from Outpost","found":true/,
  /Added alice \(owner\)[\s\S]*"username":"alice","role":"owner"/,
]

t.test("the README's first ten minutes run as written against a fresh server", async (t) => {
  const blocks = firstTenMinutes()
  t.equal(blocks.length, EXPECTED.length, 'every shell block of the section has its expected output')
  const cwd = freshCheckout(t)
  const port = await freePort()
  // No key in the environment: the server writes .env on its first start, as on a fresh clone.
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, HOST: '127.0.0.1' }
  const server = spawn(process.execPath, ['dist/server.js'], {
    cwd,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let serverOutput = ''
  server.stdout.on('data', (d) => (serverOutput += d))
  server.stderr.on('data', (d) => (serverOutput += d))
  t.teardown(() => server.kill('SIGKILL'))
  // The start-up line names our port: /health alone could be answered by another server that took it.
  const listening = `Outpost listening on http://127.0.0.1:${port}`
  const deadline = Date.now() + 60_000
  while (!serverOutput.includes(listening) && server.exitCode === null && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100))
  t.ok(serverOutput.includes(listening), 'the server started on its port', { output: serverOutput })
  if (!serverOutput.includes(listening)) return
  t.match(serverOutput, /wrote \.env with new keys/, 'the first start wrote .env')

  // Each block runs in its own shell, as pasted; what it exports is carried to the next.
  const state = join(cwd, '.readme-state')
  for (const [i, block] of blocks.entries()) {
    const script =
      `[ -f ${state} ] && . ${state}\nset -eo pipefail\n` +
      block.replaceAll('http://localhost:8080', `http://127.0.0.1:${port}`) +
      `\nexport -p > ${state}\n`
    const run = spawnSync('bash', ['-c', script], { cwd, env, encoding: 'utf8', timeout: 120_000 })
    const output = `${run.stdout}${run.stderr}`
    t.equal(run.status, 0, `block ${i + 1} exits 0`)
    if (run.status !== 0) t.comment(`block ${i + 1} printed:\n${output}\nserver:\n${serverOutput.slice(-4000)}`)
    t.match(run.stdout, EXPECTED[i]!, `block ${i + 1} prints what the README says`)
  }
})
