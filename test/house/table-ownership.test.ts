import { existsSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { FEATURES } from '../../app.js'
import { buildTestApp } from '../helpers/app.js'
import {
  ROOT,
  RUNNER_OWNER,
  belongs,
  owners,
  readSource,
  scannedFiles,
  tableUses,
  type Ownership,
  type TableUse,
} from '../helpers/table-owners.js'

/**
 * Tables are written by their owner only (ARCHITECTURE.md, "Table ownership"). The crossings below
 * are the deliberate exceptions, keyed `file kind table` ('?' for a table the statement does not
 * write out), each with its reason; a crossing no longer found fails too, so the list stays true.
 */
const CROSSINGS: Record<string, string> = {
  // Writes whose table is a value: the helpers write what their caller names (and each call, which
  // names it, is checked where it is made); the runner writes its journal; the move copies everything.
  'db/dialect.ts write ?': 'upsert() writes the table its caller names; the call is checked in the caller',
  'platform/jobs/outbox.ts write ?':
    'Outbox and Leases write the table their caller names in `new Outbox({ table })`, checked where it is built',
  'db/prepared.ts write ?': 'preparedCounterUpsert() writes the table its caller names; checked in the caller',
  'db/migration-steps.ts write ?': "the migration runner's journal (STEPS_TABLE), its own table",
  'db/step-run.ts write ?': "the migration runner's journal (STEPS_TABLE), its own table",
  'scripts/migrate-data/stores.ts write ?':
    'the move to another engine copies every table as it is, with the server stopped (a backup and restore)',
  'scripts/migrate-data/postgres-store.ts write ?': 'the same move, into PostgreSQL',
  'scripts/migrate-data/stores.ts read kysely_migration': "the move checks both databases are at this code's schema",
  'scripts/migrate-data/postgres-store.ts read kysely_migration': "the same check of the target's schema",
  'scripts/backup/index.ts read games':
    "the backup lists the games its own copy of the default game's database holds (the copy's file, read-only)",
  // Reads that save a round trip on a hot path, or keep one statement one.
  'platform/security/session-store.ts read users':
    'the ban state is joined into the one query that resolves an access token (platform cannot call a feature)',
  'platform/security/banned-players.ts read users': 'the ids of the banned players, held in memory by platform',
  'features/leaderboard/submit-view.ts read users':
    "the submit view reads the player's row (exists, banned) in the one statement that reads the board and entry",
  'features/analytics/activity.ts read users':
    'activity marks are inserted from a SELECT of the players that still exist: one statement, no foreign-key race',
  'features/users/stats.ts read player_activity':
    'retention counts the players of a sign-up span active on a day: one join, answered for analytics by users',
}

/** What breaks the rule in `uses`: a write (or read) by a file outside the table's owner, not listed in `crossings`. */
function findings(uses: TableUse[], ownership: Ownership[], crossings: Record<string, string>, used: Set<string>) {
  const found: string[] = []
  for (const use of uses) {
    const key = `${use.file} ${use.kind} ${use.table}`
    const owner = ownership.find((o) => o.table === use.table)
    if (use.kind === 'read' && !owner) continue // not a table (Buffer.from('hex'), a word in SQL text)
    if (owner && belongs(use.file, owner)) continue
    if (key in crossings) {
      used.add(key)
      continue
    }
    const whose = owner ? `owned by ${owner.owner}` : use.table === '?' ? 'not written out' : 'owned by no one'
    found.push(`${use.file}:${use.line} ${use.kind}s ${use.table} (${use.form}), ${whose}`)
  }
  return found
}

const ownership = owners(FEATURES.map((feature) => feature.manifest))
const tables = ownership.map((o) => o.table)

t.test('every table of the migrated database has exactly one owner, and every owned table exists', async (t) => {
  // The migrated database, not the Database type: it is what the code writes, wherever the table
  // types and the migrations live; the manifests' type (keyof Database) already keeps a name out of
  // them that the type does not have, so this finds a table no one owns and a type with no table.
  const { app } = await buildTestApp(t, 'sqlite')
  const present = (await app.db.introspection.getTables()).map((table) => table.name).sort()
  t.ok(present.length > 40, `${present.length} tables in the migrated database`)
  for (const table of present) {
    const holders = ownership.filter((o) => o.table === table).map((o) => o.owner)
    t.equal(holders.length, 1, `${table} has exactly one owner (${holders.join(', ') || 'none'})`)
  }
  // The runner's journal exists only where the runner journals (its engine decides): not checked here.
  for (const table of tables.filter((name) => !RUNNER_OWNER.tables.includes(name)))
    t.ok(present.includes(table), `${table}, listed by its owner, is a table of the database`)
  for (const { owner, code } of ownership)
    for (const path of code) t.ok(existsSync(join(ROOT, path)), `${owner}'s code ${path} exists`)
})

t.test("no file writes or reads another owner's tables, the listed crossings aside", async (t) => {
  const used = new Set<string>()
  const uses = scannedFiles().flatMap((file) => tableUses(file, readSource(file), tables))
  const writes = uses.filter((use) => use.kind === 'write' && use.table !== '?')
  t.ok(writes.length > 150, `${writes.length} writes found, every one checked`)
  t.same(
    new Set(writes.map((use) => use.table).filter((name) => !RUNNER_OWNER.tables.includes(name))),
    new Set(tables.filter((name) => !RUNNER_OWNER.tables.includes(name))),
    'each table is written somewhere the scan sees (the scan is not blind to a form the code uses)',
  )
  t.same(findings(uses, ownership, CROSSINGS, used), [], 'route the statement through the owner’s service.ts')
  const stale = Object.keys(CROSSINGS).filter((key) => !used.has(key))
  t.same(stale, [], 'every listed crossing is still found (drop the ones that are gone)')
})

t.test('the scan finds a write to another owner’s table in each form, and not in a comment', async (t) => {
  const file = 'features/news/x.ts'
  const writes = [
    "await db.insertInto('leaderboard_entries').values(row).execute()",
    'await trx.updateTable("leaderboard_entries as e").set({ score: 1 }).execute()',
    'await db.deleteFrom(`leaderboard_entries`).execute()',
    "await upsert(db, 'leaderboard_entries', rows, { key: ['id'] })",
    "insertOrLock(trx, 'leaderboard_entries', query, ['id'], 'id')",
    "preparedCounterUpsert<Row>('leaderboard_entries', COLUMNS, { key: 'id', counter: 'n' })",
    'await sql`UPDATE "leaderboard_entries" SET score = 0`.execute(db)',
    "const text = 'delete from leaderboard_entries where id = ?'",
    'await sql`INSERT INTO ${sql.table(name)} VALUES (1)`.execute(db)',
  ]
  for (const source of writes) {
    const found = findings(tableUses(file, source, tables), ownership, {}, new Set())
    t.equal(found.length, 1, source)
    t.match(found[0], /^features\/news\/x\.ts:1 writes (leaderboard_entries|\?) /, 'named with its file and line')
  }
  const read = findings(tableUses(file, "db.selectFrom('leaderboard_entries')", tables), ownership, {}, new Set())
  t.same(read, ['features/news/x.ts:1 reads leaderboard_entries (selectFrom), owned by leaderboard'])
  const quiet = [
    "// then insertInto('leaderboard_entries') as the leaderboard does\nawait db.insertInto('news').values(n)",
    "/* UPDATE leaderboard_entries */ await db.updateTable('news').set(n).execute()",
  ]
  for (const source of quiet) t.same(findings(tableUses(file, source, tables), ownership, {}, new Set()), [], source)
  // The owner itself may write its table.
  const own = tableUses('features/leaderboard/x.ts', "db.deleteFrom('leaderboard_entries')", tables)
  t.same(findings(own, ownership, {}, new Set()), [], 'the owner writes its own table')
})
