import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '../../db/types.js'
import type { FeatureManifest } from '../../platform/core/features.js'

/** The repository's source (tests run from dist/test, the sources sit two levels up). */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

/**
 * The tables no feature owns, and the code that owns each: what every feature stands on. The sign-in
 * lockout serves the players' and the operators' sign-in alike, so its two tables are platform's.
 * An owner is a file, or a folder (ending in `/`); its code is that file or everything under it.
 */
export const PLATFORM_OWNERS = {
  sessions: { owner: 'platform/security/session-store.ts', code: ['platform/security/session-store.ts'] },
  audit_log: { owner: 'platform/security/audit.ts', code: ['platform/security/audit.ts'] },
  content_versions: { owner: 'db/change-counters.ts', code: ['db/change-counters.ts'] },
  job_runs: { owner: 'platform/jobs/runner.ts', code: ['platform/jobs/'] },
  login_failures: { owner: 'platform/security/login-lockout.ts', code: ['platform/security/login-lockout.ts'] },
  login_locks: { owner: 'platform/security/login-lockout.ts', code: ['platform/security/login-lockout.ts'] },
  games: { owner: 'platform/games/store.ts', code: ['platform/games/store.ts'] },
  game_keys: { owner: 'platform/games/store.ts', code: ['platform/games/store.ts'] },
} satisfies Partial<Record<keyof Database, { owner: string; code: string[] }>>

/**
 * The migration runner's own journal tables: not the app's data (not in the Database type), but
 * in every migrated database, so they are owned too.
 */
export const RUNNER_OWNER = {
  owner: 'db/migrate.ts',
  code: ['db/migrate.ts', 'db/migration-steps.ts', 'db/step-run.ts', 'db/migration-lock.ts'],
  tables: ['kysely_migration', 'kysely_migration_lock', 'migration_steps', 'migration_lock'],
}

/**
 * The read hosts' heartbeat (db/read-hosts.ts): one row the writer's server stamps and each read host
 * is measured by; not the app's data (not in the Database type, never moved by migrate-data).
 */
export const HEARTBEAT_OWNER = { table: 'db_heartbeat', owner: 'db/read-hosts.ts', code: ['db/read-hosts.ts'] }

/** One table's owner: its name (a feature, or a platform file) and the files that are its code. */
export interface Ownership {
  table: string
  owner: string
  code: string[]
}

/** Every table's owner, from the features' manifests, the platform map and the runner; a table twice is listed twice. */
export function owners(manifests: readonly FeatureManifest[]): Ownership[] {
  return [
    ...manifests.flatMap((m) => m.tables.map((table) => ({ table, owner: m.name, code: [`features/${m.name}/`] }))),
    ...Object.entries(PLATFORM_OWNERS).map(([table, { owner, code }]) => ({ table, owner, code })),
    ...RUNNER_OWNER.tables.map((table) => ({ table, owner: RUNNER_OWNER.owner, code: RUNNER_OWNER.code })),
    HEARTBEAT_OWNER,
  ]
}

/** Whether `file` is part of the code of `ownership`'s owner. */
export function belongs(file: string, ownership: Ownership): boolean {
  return ownership.code.some((code) => (code.endsWith('/') ? file.startsWith(code) : file === code))
}

/**
 * The sources whose writes are checked: the server's code, the database layer, the commands and the
 * top-level entry points. Any folder named `migrations` is left out: migrations create and change
 * every table.
 */
export function scannedFiles(): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) return ['migrations', 'node_modules', 'console'].includes(entry.name) ? [] : walk(path)
      return /\.(ts|tsx|mjs|js)$/.test(entry.name) ? [path] : []
    })
  return [...['features', 'platform', 'db', 'scripts'].flatMap(walk), 'app.ts', 'server.ts', 'cluster-primary.ts']
}

export const readSource = (file: string) => readFileSync(join(ROOT, file), 'utf8')

/** A statement of `file` that touches `table` ('?' when the name is not written out); `line` is 1-based. */
export interface TableUse {
  file: string
  line: number
  kind: 'write' | 'read'
  table: string
  form: string
}

/** Kysely's builders that write the table they are given. */
const KYSELY_WRITES = ['insertInto', 'updateTable', 'deleteFrom', 'replaceInto', 'mergeInto']
/** Kysely's builders that read the table they are given. */
const KYSELY_READS = ['selectFrom', 'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', 'from', 'using']
/**
 * The project's write helpers that take the table's name as an argument (db/dialect.ts, db/prepared.ts):
 * `upsert(db, 'table', …)`, `addOnConflict(db, 'table', …)`, `insertOrLock(db, 'table', …)`,
 * `preparedCounterUpsert('table', …)`. (insertOrIgnore takes an `insertInto` query, found as such.)
 */
const HELPER_WRITES = ['upsert', 'addOnConflict', 'insertOrLock', 'preparedCounterUpsert']

/** Comments blanked out (their lines kept), so prose that says "update the users" is not a statement. */
function withoutComments(source: string): string {
  const blank = (text: string) => text.replace(/[^\n]/g, ' ')
  return source
    .replace(/\/\*[\s\S]*?\*\//g, blank)
    .replace(/(^|[\s;{}(),])\/\/[^\n]*/g, (m, lead) => lead + blank(m.slice(lead.length)))
}

/**
 * The reads and writes of tables in one source file: Kysely builders, the project's write helpers and
 * raw SQL (sql`` templates and SQL strings: INSERT INTO, UPDATE, DELETE FROM, REPLACE INTO, quoted or
 * not, for writes; FROM and JOIN for reads). `tables` are the names raw SQL is matched against; a
 * builder or helper given a table that is not written out is reported with table '?'.
 */
export function tableUses(file: string, source: string, tables: readonly string[]): TableUse[] {
  const text = withoutComments(source)
  const known = new Set(tables)
  const lineOf = (index: number) => text.slice(0, index).split('\n').length
  const uses: TableUse[] = []
  const add = (index: number, kind: TableUse['kind'], table: string, form: string) =>
    uses.push({ file, line: lineOf(index), kind, table, form })

  const builders = (names: string[], kind: TableUse['kind']) => {
    const pattern = new RegExp(`\\.(${names.join('|')})\\(\\s*(?:(['"\`])(\\w+)[^'"\`]*\\2)?`, 'g')
    for (const m of text.matchAll(pattern)) {
      // A read builder given a callback or a subquery names no table here; only a written-out name counts.
      if (m[3] === undefined && kind === 'read') continue
      add(m.index, kind, m[3] ?? '?', m[1]!)
    }
  }
  builders(KYSELY_WRITES, 'write')
  builders(KYSELY_READS, 'read')

  const helper = new RegExp(
    `\\b(${HELPER_WRITES.join('|')})\\s*(?:<[^>()]*>)?\\(\\s*(?:[\\w.]+\\s*,\\s*)?(?:(['"\`])(\\w+)\\2)?`,
    'g',
  )
  for (const m of text.matchAll(helper)) {
    // The helper's own definition (`export function upsert<TB …>(`) names no table either.
    if (/function\s*$/.test(text.slice(Math.max(0, m.index - 12), m.index))) continue
    add(m.index, 'write', m[3] ?? '?', m[1]!)
  }

  // The lease helpers (platform/jobs/outbox.ts) write the table their caller names where it builds one.
  for (const m of text.matchAll(/\bnew\s+(Outbox|Leases)\s*(?:<[^>()]*>)?\(\s*\{[^}]*?\btable:\s*(['"`])(\w+)\2/g))
    add(m.index, 'write', m[3]!, `new ${m[1]}`)

  const raw = (keywords: string, kind: TableUse['kind']) => {
    // A DELETE's FROM names the table it writes, not one it reads.
    // A table named through db/games.ts's `table(db, 'name')` (a game's schema before it) is written out too.
    const pattern = new RegExp(
      `(?<!delete\\s+)\\b(${keywords})\\s+(?:\\$\\{table\\(\\w+, '(\\w+)'\\)\\}|(\\$\\{)|[\`"']?(\\w+)[\`"']?)`,
      'gi',
    )
    for (const m of text.matchAll(pattern)) {
      const form = m[1]!.replace(/\s+/g, ' ').toUpperCase()
      const [throughTable, interpolated, name] = [m[2], m[3], m[4]]
      if (throughTable) add(m.index, kind, throughTable, form)
      else if (interpolated && kind === 'write') add(m.index, kind, '?', form)
      else if (known.has(name!)) add(m.index, kind, name!, form)
    }
  }
  raw('INSERT\\s+(?:IGNORE\\s+)?INTO|UPDATE|DELETE\\s+FROM|REPLACE\\s+INTO', 'write')
  raw('FROM|JOIN', 'read')
  return uses
}
