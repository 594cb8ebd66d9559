import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import t from 'tap'

/**
 * A feature brings its console pages by itself: a new `features/<name>/console/index.ts` and its page,
 * with nothing else edited, put the page in the built console (its own chunk, loaded on first visit)
 * and its line in the menu. Built on a copy of what the console build reads (the repository itself
 * is never written).
 */

const ROOT = resolve(new URL('../../../', import.meta.url).pathname)
/** What `scripts/build-console.mjs` reads, node_modules aside (linked). */
const READ_BY_BUILD = ['console', 'features', 'platform', 'db', 'scripts/build-console.mjs', 'package.json']

const LABEL = 'Demo things'
/** Text only the page shows: where it lands in the bundle says which chunk holds the page. */
const MARKER = 'demo-page-body-7f3a'

const INDEX = `import type { FeatureConsole } from '../../../console/src/page'

export default {
  routes: [{ pattern: '/demo-things/:id', load: () => import('./demo-things') }],
  menu: [{ path: '/demo-things/1', label: '${LABEL}', position: 125 }],
} satisfies FeatureConsole
`
const PAGE = `import type { PageProps } from '../../../console/src/page'

export default function DemoThings({ params }: PageProps) {
  return <p>${MARKER} {params.id}</p>
}
`

t.test(
  'a feature folder with console/index.ts and a page reaches the built console',
  { timeout: 120_000 },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'outpost-add-a-feature-console-'))
    t.teardown(() => rmSync(dir, { recursive: true, force: true }))
    for (const path of READ_BY_BUILD) cpSync(join(ROOT, path), join(dir, path), { recursive: true })
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir')
    mkdirSync(join(dir, 'features/demo/console'), { recursive: true })
    writeFileSync(join(dir, 'features/demo/console/index.ts'), INDEX)
    writeFileSync(join(dir, 'features/demo/console/demo-things.tsx'), PAGE)

    const build = spawnSync(process.execPath, ['scripts/build-console.mjs'], { cwd: dir, encoding: 'utf8' })
    t.equal(build.status, 0, `the console builds with the new feature: ${build.stdout}${build.stderr}`)
    t.match(build.stdout, /first load [\d.]+ KB \(brotli\), budget 100 KB/, 'within its first-load budget')

    const out = join(dir, 'dist/console')
    const entryPath = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(readFileSync(join(out, 'index.html'), 'utf8'))?.[1]
    t.ok(entryPath, 'index.html names the entry script')
    const entry = readFileSync(join(out, entryPath!), 'utf8')
    t.match(entry, `"${LABEL}"`, "the menu line's label is in the first load")
    t.match(entry, '"/demo-things/:id"', "the page's route is in the first load")
    t.notMatch(entry, MARKER, 'the page itself is not in the first load')

    const chunk = /import\("\.\/(demo-things-[\w-]+\.js)"\)/.exec(entry)?.[1]
    t.ok(chunk, `the route loads the page's own chunk (${chunk})`)
    if (!chunk) return
    t.ok(existsSync(join(out, 'assets', chunk)), 'the chunk was written beside the entry')
    t.match(readFileSync(join(out, 'assets', chunk), 'utf8'), MARKER, 'the chunk holds the page')
  },
)
