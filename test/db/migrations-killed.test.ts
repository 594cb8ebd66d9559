import t from 'tap'
import { migrateToLatest } from '../../db/migrate.js'
import { MIGRATIONS } from '../../app.js'
import { eachDialect, freshDatabase } from '../helpers/app.js'
import { adminOf, endSessions, migratingDb, reference, snapshot } from '../helpers/migration-crash.js'

/**
 * Migrations killed part-way, then run again, end as a database migrated in one clean run: the same
 * tables, columns, indexes, foreign keys and seeded rows. MySQL commits each DDL statement on its own
 * (db/migration-steps.ts keeps a journal of them); SQLite undoes a crashed run whole.
 *
 * Here a run stops right after each statement of every migration in turn (test/db/migrations-sigkill.test.ts
 * kills real processes at chosen ones).
 */
eachDialect(t, async (t, dialect) => {
  const clean = await reference(t, dialect)
  t.ok(clean.statements.includes('0040_add_user_credentials:5'), 'the runner tells of every statement it runs')

  t.test(
    'a crash right after each statement of every migration: every run resumes where the last stopped',
    async (t) => {
      const env = await freshDatabase(t, dialect)
      const admin = dialect === 'mysql' ? await adminOf(t, env) : null
      const crashedAt = new Set<string>()
      const started = Date.now()
      let runs = 0
      for (;;) {
        runs++
        const db = migratingDb(env)
        let crash: string | null = null
        try {
          await migrateToLatest(db, MIGRATIONS, {
            // The first statement not crashed at yet: the run stops right after it has run. On MySQL
            // its session is ended as a crash ends it; SQLite undoes the migration (its savepoint).
            onStep: async ({ migration, step, phase }) => {
              const key = `${migration}:${step}`
              if (phase !== 'applied' || crashedAt.has(key)) return
              crashedAt.add(key)
              crash = key
              if (admin) await endSessions(admin)
              throw new Error(`crashed after ${key}`)
            },
          })
        } catch (error) {
          if (!crash) throw error
        } finally {
          await db.destroy().catch(() => {})
        }
        if (!crash) break
      }
      t.comment(
        `${dialect}: ${runs} runs, ${crashedAt.size} crash points, ${((Date.now() - started) / 1000).toFixed(1)} s`,
      )
      t.same([...crashedAt].sort(), [...clean.statements].sort(), 'a crash after every statement of the clean run')
      t.same(await snapshot(env, dialect), clean.database, 'the same database as one clean run')
    },
  )
})
