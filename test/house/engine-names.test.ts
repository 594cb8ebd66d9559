import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { ENGINE_NAMES } from '../../db/engine.js'
import { ENGINES, engineNamed } from '../../db/engines/index.js'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * Where code may name a database engine outside db/, and why. Everywhere else the engine is asked
 * (`engineOf`, the helpers of db/dialect.ts), never named: a fourth engine is then a module in
 * db/engines/, not a search through the code.
 */
const EXCEPTIONS: Record<string, string> = {
  'test/': 'tests run each engine by name (eachDialect) and check what each one does',
  'bench/': "the bench starts each engine's server and counts its processes' CPU",
  'scripts/backup/index.ts':
    "the command copies the SQLite file itself; for a database server it prints the engine's own tool",
  'scripts/import-php/source.ts': "the PHP server's own database, SQLite or MySQL, read by the import",
  'scripts/import-php/import.ts': "re-exports the PHP server's sources",
  'scripts/import-php/index.ts': "the import's --from names the PHP server's SQLite file or MySQL URL",
  'scripts/migrate-data/index.ts': "the command's arguments are sqlite:, mysql:// and postgres:// addresses",
  'scripts/migrate-data/move.ts': "the migrations' seed rows are read from a new SQLite file, the same on every engine",
  'scripts/migrate-data/stores.ts': "reads and writes each engine's catalog (tables, columns, auto-increment)",
  'scripts/migrate-data/postgres-store.ts':
    "reads and writes PostgreSQL's catalog (tables, columns, keys, identity sequences)",
}

/**
 * A feature's migrations (features/<name>/migrations/) may ask the engine by name, as db/migrations/
 * does: a migration is frozen once a database has applied it, so its DDL stays as it was written,
 * per engine where the engines differ.
 */
const MIGRATION = /^features\/[^/]+\/migrations\//

const ENGINE_WORD = /\b(mysql|mariadb|sqlite|postgres(?:ql)?|innodb)\b|Mysql|Sqlite|Postgres/i

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return ['node_modules', 'dist', 'db'].includes(entry.name) ? [] : sourceFiles(path)
    return /\.tsx?$/.test(entry.name) ? [path] : []
  })
}

/** The identifiers and string texts of a file that name an engine: comments may explain an engine's ways. */
function namesIn(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8')
  const kind = path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, kind)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    const named =
      ts.isIdentifier(node) ||
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
    if (named && ENGINE_WORD.test(node.text)) {
      found.push(`${node.text} (line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1})`)
    }
    node.forEachChild(visit)
  }
  visit(source)
  return found
}

t.test(
  'outside db/, no source names a database engine (but the listed exceptions, each with its reason)',
  async (t) => {
    const files = ['.', 'features', 'platform', 'scripts', 'console/src', 'bench', 'test'].flatMap((dir) =>
      dir === '.' ? readdirSync(ROOT).filter((name) => name.endsWith('.ts')) : sourceFiles(dir),
    )
    t.ok(files.length > 300, `${files.length} files read`)
    const offenders = files
      .filter((path) => !Object.keys(EXCEPTIONS).some((prefix) => path === prefix || path.startsWith(prefix)))
      .filter((path) => !MIGRATION.test(path))
      .map((path) => ({ path, names: namesIn(path) }))
      .filter(({ names }) => names.length > 0)
    t.same(offenders, [], 'ask the engine (db/engines/) instead of naming one')
    for (const prefix of Object.keys(EXCEPTIONS)) {
      const exists = files.some((path) => path === prefix || path.startsWith(prefix))
      t.ok(exists, `the exception ${prefix} still names a file`)
    }
  },
)

t.test('the scan sees a name in code and not in a comment', async (t) => {
  const dir = mkdtempSync(join(ROOT, '.engine-names-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'a.ts'), "// MySQL's locks\nconst x = `${1} Postgres`\nexport const y = x === 'mysql'\n")
  t.same(namesIn(join(dir.slice(ROOT.length), 'a.ts')), [' Postgres (line 2)', 'mysql (line 3)'])
})

t.test('every engine DB_DRIVER names has a module, and an unknown one is an error, not a fallback', async (t) => {
  t.same(Object.keys(ENGINES).sort(), [...ENGINE_NAMES].sort())
  for (const name of ENGINE_NAMES) t.equal(engineNamed(name).name, name)
  t.throws(() => engineNamed('oracle'), /DB_DRIVER must be one of sqlite, mysql, postgres \(got "oracle"\)/)
})
