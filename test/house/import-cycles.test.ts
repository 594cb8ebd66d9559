import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Where the repository's TypeScript lives: every folder of code, tests and console included. */
const FOLDERS = ['features', 'platform', 'db', 'scripts', 'bench', 'console/src', 'test']

function sourceFiles(dir: string): string[] {
  if (!existsSync(join(ROOT, dir))) return []
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/**
 * Every relative module specifier of a file: `import … from`, `export … from` (type-only ones too:
 * a cycle of types is still a cycle to understand), bare `import '…'` and `import('…')`.
 */
function specifiers(text: string): string[] {
  const found: string[] = []
  for (const match of text.matchAll(/(?:^|[\s;}])(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"\n]+)['"]/gm)) {
    found.push(match[1])
  }
  return found
}

/** The file a specifier names among `files`: `.js` stands for `.ts`/`.tsx`, the console omits it. */
function resolve(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const base = normalize(join(dirname(from), specifier))
  const stem = base.replace(/\.(?:js|jsx|ts|tsx)$/, '')
  return [base, `${stem}.ts`, `${stem}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((candidate) =>
    files.has(candidate),
  )
}

/** Each file's imports among the given files, by repository-relative path. */
function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const files = new Set(sources.keys())
  const graph = new Map<string, string[]>()
  for (const [file, text] of sources) {
    const targets = specifiers(text).flatMap((specifier) => resolve(file, specifier, files) ?? [])
    graph.set(file, [...new Set(targets)])
  }
  return graph
}

/** The strongly connected components of more than one file, or of one file that imports itself (Tarjan). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const cycles: string[][] = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const component: string[] = []
    let member: string
    do {
      member = stack.pop()!
      onStack.delete(member)
      component.push(member)
    } while (member !== node)
    if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort())
  }
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node)
  return cycles.sort((a, b) => a[0].localeCompare(b[0]))
}

t.test('finds a two-file cycle, a self-import and a type-only cycle; a chain is none', async (t) => {
  const two = importGraph(
    new Map([
      ['a/one.ts', "import { two } from './two.js'\nexport const one = two"],
      ['a/two.ts', "export type { One } from './one.js'\nexport const two = 2"],
      ['b/self.ts', "import './self.js'"],
      ['c/first.ts', "import type { Second } from '../c/second.js'"],
      ['c/second.ts', "import type {\n  First,\n} from './first.js'"],
      ['d/top.ts', "import { x } from './bottom.js'"],
      ['d/bottom.ts', "import { y } from 'node:fs'\nexport const x = y"],
    ]),
  )
  t.same(importCycles(two), [['a/one.ts', 'a/two.ts'], ['b/self.ts'], ['c/first.ts', 'c/second.ts']])
})

t.test('finds a cycle through the console, whose imports omit the extension', async (t) => {
  const graph = importGraph(
    new Map([
      ['console/src/ui/index.tsx', "import { api } from '../api'"],
      ['console/src/api.ts', "import { Table } from './ui'"],
    ]),
  )
  t.same(importCycles(graph), [['console/src/api.ts', 'console/src/ui/index.tsx']])
})

t.test('no import cycle anywhere in the repository', async (t) => {
  const topLevel = readdirSync(ROOT).filter((name) => /\.tsx?$/.test(name) && statSync(join(ROOT, name)).isFile())
  const files = FOLDERS.flatMap(sourceFiles).concat(topLevel)
  t.ok(files.length > 100, 'the source was found')
  const sources = new Map(files.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]))
  const cycles = importCycles(importGraph(sources)).map((component) => component.join(' ↔ '))
  t.same(cycles, [], 'move what both sides need (a type, a helper) into a module of its own that both import')
})
