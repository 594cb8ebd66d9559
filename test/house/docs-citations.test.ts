// The repository cites only itself: every "contract §N" names a section of docs/contract.md, every
// pointer to a section of a Markdown file ("docs/deployment.md, \"Timeouts\"") names a heading it has,
// and nothing points at a document kept outside the repository.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { anchors, headings, slug } from '../helpers/markdown.js'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
const CONTRACT = 'docs/contract.md'
/** This file: its list of exceptions names what it excepts. */
const SELF = 'test/house/docs-citations.test.ts'

/**
 * Lines allowed to name what lies outside the repository, each with its reason. An exception that no
 * longer matches a line fails too, so the list never outlives its reason.
 */
const OUTSIDE_EXCEPTIONS: Array<{ file: string; text: string; lines: number; reason: string }> = [
  ...(
    [
      ['bench/bench.ts', 2],
      ['docs/performance.md', 1],
      ['test/helpers/php-server.ts', 1],
    ] as const
  ).map(([file, lines]) => ({
    file,
    text: '../shared/peers/horizon-simple-server',
    lines,
    reason: "the default place of the PHP server's own source, an optional peer (PHP_SERVER_DIR overrides it)",
  })),
]

/** Every text file of the checkout that git would track: committed ones and new ones not ignored. */
function trackedFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr || listed.error}`)
  return [...new Set(listed.stdout.split('\0'))].filter(
    (file) => file !== '' && existsSync(join(ROOT, file)) && !readFileSync(join(ROOT, file)).includes(0),
  )
}

/** The numbered sections of the contract ("5.3"), with the anchor of each. */
function contractSections(): Map<string, string> {
  const sections = new Map<string, string>()
  for (const heading of headings(read(CONTRACT))) {
    const number = /^(\d+(?:\.\d+)*)\.? /.exec(heading)?.[1]
    if (number) sections.set(number, slug(heading))
  }
  return sections
}

/** "contract §3 and §10", "Contract §5.2, §5.7": each cited section number. */
const CITATION = /\bcontract (§\d+(?:\.\d+)*(?:(?:,| and| or|, and) §\d+(?:\.\d+)*)*)/gi
const cited = (citation: string) => [...citation.matchAll(/§(\d+(?:\.\d+)*)/g)].map((m) => m[1]!)

const files = trackedFiles()
const exempt = (file: string, line: string) =>
  OUTSIDE_EXCEPTIONS.some((exception) => exception.file === file && line.includes(exception.text))

t.test('the contract is numbered as its citations expect', async (t) => {
  const sections = contractSections()
  t.equal(sections.get('12'), '12-analytics', 'section 12 is the analytics')
  t.equal(sections.get('5.3'), '53-validated-actions', 'section 5.3 is the validated actions')
  t.same(cited('contract §3 and §10'), ['3', '10'])
  t.same(
    [...'x (Contract §5.2, §5.7: y) contract §1.2 revision 4.'.matchAll(CITATION)].flatMap((m) => cited(m[1]!)),
    ['5.2', '5.7', '1.2'],
  )
  t.ok(files.includes(CONTRACT) && files.includes('app.ts'), `${files.length} files listed`)
})

t.test('every "contract §N" names a section of docs/contract.md', async (t) => {
  const sections = contractSections()
  const bare: string[] = []
  let count = 0
  for (const file of files) {
    for (const [index, line] of read(file).split('\n').entries()) {
      if (exempt(file, line)) continue
      for (const [, citation] of line.matchAll(CITATION)) {
        for (const number of cited(citation!)) {
          count++
          t.ok(sections.has(number), `${file}:${index + 1}: contract §${number} is a section of ${CONTRACT}`)
        }
      }
      // A link that says "contract §N" goes to section N, not to another one.
      for (const [, number, target] of line.matchAll(/\[contract §(\d+(?:\.\d+)*)\]\(([^)]*)\)/gi)) {
        const anchor = target!.split('#')[1]
        t.equal(anchor, sections.get(number!), `${file}:${index + 1}: the link of contract §${number} goes there`)
      }
      // What cites a section says whose: a bare "§12" is read as the contract's by nobody.
      if (file === CONTRACT || file === SELF) continue
      const rest = line.replace(CITATION, '').replace(/\bRFC \d+ §[\d.]+/g, '')
      if (/§\d/.test(rest)) bare.push(`${file}:${index + 1}: ${line.trim()}`)
    }
  }
  t.ok(count >= 30, `${count} citations checked`)
  t.same(bare, [], 'no § without "contract" (or an RFC) before it')
})

t.test('every pointer to a section of a Markdown page names a heading it has', async (t) => {
  // `docs/deployment.md, "Timeouts"`, `README's "Your first ten minutes"`, `docs/contract.md#12-analytics`.
  const pointer = /\b((?:[\w-]+\/)*[\w-]+\.md|README)(?:'s|,)? (?:section )?"([^"$]+)"/g
  const anchored = /(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)#([\w-]+)/g
  const page = (from: string, name: string) => {
    const file = name === 'README' ? 'README.md' : name
    return existsSync(join(ROOT, file)) ? file : join(dirname(from), file)
  }
  let count = 0
  for (const file of files) {
    const text = read(file)
    for (const [, name, section] of text.matchAll(pointer)) {
      const target = page(file, name!)
      count++
      if (!existsSync(join(ROOT, target))) t.fail(`${file}: ${name}, "${section}": no such page`)
      else t.ok(headings(read(target)).includes(section!), `${file}: ${target} has a section "${section}"`)
    }
    if (file.endsWith('.md')) continue // Markdown links are checked by docs.test.ts
    for (const [, name, anchor] of text.matchAll(anchored)) {
      const target = page(file, name!)
      count++
      if (!existsSync(join(ROOT, target))) t.fail(`${file}: ${name}#${anchor}: no such page`)
      else t.ok(anchors(read(target)).has(anchor!), `${file}: ${target} has the anchor #${anchor}`)
    }
  }
  t.ok(count >= 5, `${count} pointers checked`)
})

t.test('nothing cites a document outside the repository', async (t) => {
  const outside = /API\.md|\.\.\/shared\b|\/work\/shared\b/
  const matched = new Map<(typeof OUTSIDE_EXCEPTIONS)[number], number>()
  for (const file of files) {
    if (file === SELF) continue
    for (const [index, line] of read(file).split('\n').entries()) {
      if (!outside.test(line)) continue
      const exception = OUTSIDE_EXCEPTIONS.find((e) => e.file === file && line.includes(e.text))
      if (exception) matched.set(exception, (matched.get(exception) ?? 0) + 1)
      else t.fail(`${file}:${index + 1} cites a document outside the repository: cite docs/contract.md`, { line })
    }
  }
  for (const exception of OUTSIDE_EXCEPTIONS)
    t.equal(matched.get(exception) ?? 0, exception.lines, `${exception.file}: ${exception.reason}`)
})
