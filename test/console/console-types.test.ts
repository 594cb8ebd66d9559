import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import t, { type Test } from 'tap'

/**
 * The console's types are the server's: console/src reads the admin API's answers through type-only
 * imports of the features' schemas.ts (console/src/types.ts), so a server shape change that the console relies on
 * fails `npm run typecheck`, and no server code reaches the browser bundle. Checked on a copy of what
 * the console's type check reads (the repository itself is never written).
 */

const ROOT = resolve(new URL('../../../', import.meta.url).pathname)
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc')
/** What `tsc -p console/tsconfig.json` reads, node_modules aside: a missing one fails the first test. */
const READ_BY_CONSOLE = ['console', 'features', 'platform', 'db']
/** The one server module the console bundles: dependency-free, so it adds a few bytes. */
const BUNDLED = join(ROOT, 'platform/security/roles.ts')

function copy(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'outpost-console-types-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const path of READ_BY_CONSOLE) cpSync(join(ROOT, path), join(dir, path), { recursive: true })
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
  return dir
}

function typecheck(dir: string): { status: number | null; output: string } {
  const result = spawnSync(
    process.execPath,
    [TSC, '-p', join(dir, 'console/tsconfig.json'), '--noEmit', '--pretty', 'false'],
    { cwd: dir, encoding: 'utf8' },
  )
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

t.test(
  'a field type changed in features/users/schemas.ts fails the console type check, in a console file',
  async (t) => {
    const dir = copy(t)
    const clean = typecheck(dir)
    t.equal(clean.status, 0, `the unchanged copy type-checks: ${clean.output}`)

    const users = join(dir, 'features/users/schemas.ts')
    const source = readFileSync(users, 'utf8')
    const changed = source.replace(
      /(export const AdminUserSchema = Type\.Object\(\{[^}]*?\n {2}username: )Type\.String\(\)/,
      '$1Type.Number()',
    )
    t.not(
      changed,
      source,
      "AdminUser's username is a string in features/users/schemas.ts (now made a number in the copy)",
    )
    writeFileSync(users, changed)
    const broken = typecheck(dir)
    t.not(broken.status, 0, 'the console no longer type-checks')
    t.match(
      broken.output,
      /^(console\/src|features\/[^/]+\/console)\/\S+\.tsx?\(\d+,\d+\): error TS\d+/m,
      `a console file is named: ${broken.output}`,
    )
    t.notMatch(broken.output, /^features\/[^/]+\/schemas\.ts/m, 'the server schemas themselves still type-check')
  },
)

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sources(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

t.test('the console imports server modules for their types only (roles.ts aside)', async (t) => {
  const consoleDir = join(ROOT, 'console')
  const IMPORT = /^(?:import|export)\s+(type\s+)?(?:[\w$*\s,]*\{[^}]*\}|[\w$*\s,]+?)\s*from\s+'([^']+)'/gm
  const outside: string[] = []
  const featurePages = readdirSync(join(ROOT, 'features')).flatMap((feature) => {
    const pages = join(ROOT, 'features', feature, 'console')
    return existsSync(pages) ? sources(pages) : []
  })
  const isConsole = (path: string) =>
    !relative(consoleDir, path).startsWith('..') || /^features\/[^/]+\/console\//.test(relative(ROOT, path))
  for (const file of [...sources(join(consoleDir, 'src')), ...featurePages]) {
    for (const [, typeOnly, specifier] of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      if (!specifier.startsWith('.')) continue
      const target = resolve(dirname(file), specifier)
      if (isConsole(target)) continue
      const where = `${relative(ROOT, file)} → ${relative(ROOT, target)}`
      outside.push(where)
      const bundled = target.replace(/\.(js|ts)$/, '') === BUNDLED.replace(/\.ts$/, '')
      t.ok(typeOnly || bundled, `${where}: ${typeOnly ? 'type-only' : 'a value import'}`)
    }
  }
  t.ok(
    outside.some((where) => /→ features\/[^/]+\/schemas/.test(where)),
    "the console's answer types come from the features' schemas",
  )
  t.notMatch(readFileSync(BUNDLED, 'utf8'), /^import\s/m, 'roles.ts, bundled by the console, imports nothing')
})
