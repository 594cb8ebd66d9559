import { randomUUID } from 'node:crypto'
import { MysqlAdapter, sql, type Kysely } from 'kysely'
import type { Db } from './types.js'
import { createDb, openedWith } from './index.js'
import { affected } from './dialect.js'
import { retryOnConflict } from './transaction.js'

/**
 * The migration lock of a MySQL database, which may be served by several primaries at once (a Galera
 * cluster, docs/deployment.md, "More than one database server"). Kysely's own lock there is
 * `GET_LOCK`, which each server keeps to itself: two instances starting at once on two nodes of a
 * cluster would both migrate. This lock is a row instead, `migration_lock` in the database being
 * migrated, taken by one conditional UPDATE whose affected-row count names the one run that won (a
 * cluster certifies the row's write, so of two nodes' takes one fails and is tried again), with a
 * lease that its holder renews while it runs and gives back at the end. A holder that died leaves its
 * lease to lapse (LEASE_SECONDS); one on the same server is known dead at once: each run first takes
 * a server-local `GET_LOCK` of the database, which a live run on that server holds until it has given
 * its lease back, so a waiter holding it knows a lease of its own server is a dead run's.
 *
 * The lock is per database: a game's database (db/games.ts) has its own, taken by whichever caller
 * migrates it (the start, a game made in the console, `npm run migrate`), so runs on two games go on
 * side by side and two runs on one never do. The lock's statements run on a connection of their own
 * (`openedWith`): the migration's connection is busy for as long as a statement (a table rebuilt)
 * lasts, and the lease must be renewed meanwhile.
 *
 * SQLite (one file, one writer) and PostgreSQL (one primary; the run is one transaction under an
 * advisory lock) keep Kysely's lock, which holds there.
 */

/** The lock's table, made before the migrations run (not a migration: they run under it). */
export const LOCK_TABLE = 'migration_lock'
const LOCK_ROW = 'migrations'
/** How long a lease lasts unless renewed: a holder on another server that died is waited for that long at most. */
export const LEASE_SECONDS = 30
/** How often the holder renews its lease. */
const RENEW_MS = 5000
/** How long a run waits for another's before it gives up: an hour, as long as Kysely's own lock waited. */
const WAIT_MS = 3600 * 1000
/** Between two tries of a lease held by a run on another server. */
const POLL_MS = 500
/** The bound on each of the lock's statements (a `GET_LOCK` waits 10 s within it). */
const STATEMENT_MS = 60_000

/** A lock taken: checked at each statement of the run, given back at its end. */
export interface MigrationLock {
  /** Throws once the lease is lost (another run took it, or it could not be renewed in time). */
  check(): void
  /** Gives the lease back and closes the lock's connection. Never throws: an unreleased lease lapses. */
  release(): Promise<void>
}

/** Takes the migration lock of the database `db` migrates (MySQL), waiting for a run in progress; null elsewhere. */
export async function takeMigrationLock(db: Kysely<any>): Promise<MigrationLock | null> {
  if (!(db.getExecutor().adapter instanceof MysqlAdapter)) return null
  const config = openedWith(db as Db)
  if (!config) throw new Error('a MySQL database is migrated through a handle made by createDb (db/index.ts)')
  const side = createDb({ ...config, DB_POOL_SIZE: 1, DB_QUERY_TIMEOUT_MS: STATEMENT_MS })
  try {
    return await take(side)
  } catch (error) {
    await side.destroy().catch(() => {})
    throw error
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** The server-local lock of the database: its name fits GET_LOCK's 64 characters whatever the database's name. */
const localLock = sql`concat('outpost_migrate_', sha1(database()))`

async function take(side: Db): Promise<MigrationLock> {
  const deadline = Date.now() + WAIT_MS
  await sql`create table if not exists migration_lock (
      id varchar(64) not null primary key,
      holder varchar(64) null,
      node varchar(255) null,
      expires_at datetime(3) null)`.execute(side)
  await retryOnConflict(() => sql`insert ignore into migration_lock (id) values (${LOCK_ROW})`.execute(side))
  const node = await nodeName(side)
  for (;;) {
    const { rows } = await sql<{ got: number | null }>`select get_lock(${localLock}, 10) as got`.execute(side)
    if (Number(rows[0]?.got) === 1) break
    if (Date.now() > deadline)
      throw new Error(`another run on this server held the migration lock for ${WAIT_MS / 1000} s`)
  }
  const token = randomUUID()
  for (;;) {
    // Free, lapsed, or left by a run of this server, which is dead: its live runs wait on the local lock.
    const taken = await retryOnConflict(() =>
      sql`update migration_lock set holder = ${token}, node = ${node},
          expires_at = utc_timestamp(3) + interval ${sql.lit(LEASE_SECONDS)} second
        where id = ${LOCK_ROW} and (holder is null or expires_at < utc_timestamp(3) or node = ${node})`.execute(side),
    )
    if (affected(taken) === 1) break
    if (Date.now() > deadline) {
      const { rows } = await sql<{ node: string; expires_at: string }>`
        select node, expires_at from migration_lock where id = ${LOCK_ROW}`.execute(side)
      throw new Error(
        `the migration lock was held by a run on ${rows[0]?.node} (its lease runs until ${rows[0]?.expires_at} UTC) ` +
          `for ${WAIT_MS / 1000} s`,
      )
    }
    await sleep(POLL_MS)
  }
  return heldLock(side, token)
}

/** This server's name: its host and port, and on a Galera node its member id (unique to the running process). */
async function nodeName(side: Db): Promise<string> {
  const { rows } = await sql<{ node: string }>`select concat(@@hostname, ':', @@port) as node`.execute(side)
  const member = await sql<{ Value: string }>`show status like 'wsrep_gcomm_uuid'`.execute(side)
  const uuid = member.rows[0]?.Value
  return `${rows[0]!.node}${uuid ? `/${uuid}` : ''}`.slice(0, 255)
}

function heldLock(side: Db, token: string): MigrationLock {
  let lost: string | null = null
  let renewedAt = Date.now()
  let timer: NodeJS.Timeout | undefined
  let renewing: Promise<void> = Promise.resolve()
  const renew = async () => {
    try {
      const renewed = await retryOnConflict(() =>
        sql`update migration_lock set expires_at = utc_timestamp(3) + interval ${sql.lit(LEASE_SECONDS)} second
          where id = ${LOCK_ROW} and holder = ${token} and is_used_lock(${localLock}) = connection_id()`.execute(side),
      )
      if (affected(renewed) === 1) renewedAt = Date.now()
      // Taken by another run, or this connection was replaced and its server-local lock went with it
      // (another run of this server may then take the lease).
      else lost = 'another run took it, or its connection was lost'
    } catch (error) {
      // A renewal may fail now and then; a lease that may have lapsed is taken for lost.
      if (Date.now() - renewedAt > LEASE_SECONDS * 1000 - RENEW_MS) {
        lost = `it could not be renewed: ${(error as Error).message}`
      }
    }
    if (!lost && timer) schedule()
  }
  const schedule = () => {
    timer = setTimeout(() => void (renewing = renew()), RENEW_MS)
    timer.unref()
  }
  schedule()
  return {
    check() {
      if (lost) {
        throw new Error(
          `the migration lock was lost (${lost}): this run stops, so that two runs never migrate at once; start again`,
        )
      }
    },
    async release() {
      clearTimeout(timer)
      timer = undefined
      await renewing
      await sql`update migration_lock set holder = null, node = null, expires_at = null
        where id = ${LOCK_ROW} and holder = ${token}`
        .execute(side)
        .catch(() => {})
      await sql`select release_lock(${localLock})`.execute(side).catch(() => {})
      await side.destroy().catch(() => {})
    },
  }
}
