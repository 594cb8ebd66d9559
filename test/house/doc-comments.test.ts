// Left out: schemas.ts (TypeBox schema consts) and docs.ts (example values) are named for what they
// are, and a migration's up/down are its name; console/ pages are Preact components, not this rule's.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/** Paths (relative to the root) that need no doc comments on their exports: see the top of this file. */
const LEFT_OUT = [
  /^db\/migrations\//,
  /^features\/[^/]+\/(schemas|docs)\.ts$/,
  /^features\/[^/]+\/(migrations|console)\//,
]

/** The .ts files of `dir`, walked down, less those LEFT_OUT. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (LEFT_OUT.some((rule) => rule.test(entry.isDirectory() ? `${path}/` : path))) return []
    if (entry.isDirectory()) return sourceFiles(path)
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : []
  })
}

/** Whether a statement carries a JSDoc comment with some text in it (a `//` or plain block comment is not one). */
function documented(statement: ts.Statement): boolean {
  return ts
    .getJSDocCommentsAndTags(statement)
    .some((doc) => ts.isJSDoc(doc) && (ts.getTextOfJSDocComment(doc.comment) ?? '').trim() !== '')
}

/**
 * The names a file exports by declaration (functions, classes, consts, interfaces, types, enums)
 * with no doc comment above them. An overloaded or merged name is judged at its first declaration;
 * `export { … }` lists re-export names documented where they are declared.
 */
function undocumented(path: string, text: string): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const seen = new Set<string>()
  const missing: string[] = []
  for (const statement of source.statements) {
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue
    const names = ts.isVariableStatement(statement)
      ? statement.declarationList.declarations.map((declaration) => declaration.name.getText(source))
      : 'name' in statement && statement.name
        ? [(statement.name as ts.Node).getText(source)]
        : ['default']
    for (const name of names) {
      if (seen.has(name)) continue
      seen.add(name)
      if (!documented(statement)) missing.push(`${path}:${name}`)
    }
  }
  return missing
}

t.test('every exported declaration of platform/, db/, scripts/ and features/ says why it exists', async (t) => {
  const files = ['platform', 'db', 'scripts', 'features'].flatMap(sourceFiles)
  t.ok(files.length > 200, `${files.length} files read`)
  t.notOk(
    files.some((path) => LEFT_OUT.some((rule) => rule.test(path))),
    'no left-out file is read',
  )
  const missing = files.flatMap((path) => undocumented(path, readFileSync(join(ROOT, path), 'utf8')))
  t.same(missing, [], 'add a one-line /** … */ comment saying what each is for')
})

t.test('the scan finds an export without a doc comment, and only that one', async (t) => {
  const text = [
    '/** Why a exists. */',
    'export const a = 1',
    '// A line comment is not a doc comment.',
    'export function b() {}',
    '/* Nor is a block comment. */',
    'export class C {}',
    '/** */',
    'export interface D {}',
    'export type E = string',
    '/** Why f exists. */',
    'export function f(x: string): string',
    'export function f(x: number): number',
    'export function f(x: unknown) { return x }',
    'export enum G { One }',
    'export default function () {}',
    'function notExported() {}',
    'export { notExported }',
    '/** Why h and i exist. */',
    'export const h = 1, i = 2',
  ].join('\n')
  t.same(undocumented('x.ts', text), ['x.ts:b', 'x.ts:C', 'x.ts:D', 'x.ts:E', 'x.ts:G', 'x.ts:default'])
})

t.test('the left-out paths are the ones named, and only those', async (t) => {
  const leftOut = (path: string) => LEFT_OUT.some((rule) => rule.test(path))
  t.ok(leftOut('db/migrations/0002_create_sessions.ts'))
  t.ok(leftOut('features/news/schemas.ts'))
  t.ok(leftOut('features/news/docs.ts'))
  t.ok(leftOut('features/news/migrations/'))
  t.ok(leftOut('features/news/console/'))
  t.notOk(leftOut('features/news/service.ts'))
  t.notOk(leftOut('features/news/tables.ts'))
  t.notOk(leftOut('platform/schemas/common.ts'))
  t.notOk(leftOut('db/tables/platform.ts'))
})
