import { sql } from 'kysely'
import type { Db } from './types.js'
import type { DbConfig } from './config.js'
import { hostLabel, readDbHosts } from './hosts.js'
import { inheritHandle } from './index.js'
import { openMysqlReader } from './open-mysql.js'
import { pooledDirectOf } from './prepared.js'

/**
 * The read hosts of DB_READ_HOST on MySQL/MariaDB (docs/deployment.md, "Reads off the writer"):
 * replicas (or other Galera nodes) that take the reads which may be seconds old. A game's handle
 * offers its reads through `readerOf(db)`: the handle on the first read host that answers and is
 * less than DB_READ_MAX_LAG_MS behind the writer, else the writer's own handle. Deciding costs
 * nothing: the hosts' state lives in memory, refreshed by a background probe every PROBE_EVERY_MS.
 *
 * How far behind: the writer's database server stamps its clock into the one row of `db_heartbeat`
 * (in the default database; a replica replicates it with every game's data) at most every BEAT_MS,
 * whichever instance gets there first (one conditional UPDATE). Each probe reads the row on the
 * writer, then on each read host: the difference is the host's lag, in steps of BEAT_MS, read with
 * one clock (the writer's server), so neither the instances' nor the servers' clocks need agree. It
 * works alike for an async replica and a Galera node. A lag that cannot be measured (the writer's row
 * unread, the host's probe failed or still running past its bound) counts as too far behind.
 */

/** How often the probe runs. */
export const PROBE_EVERY_MS = 500
/** The shortest time between two stamps of the heartbeat row (by any instance). */
const BEAT_MS = 400
/** The longest a probe's read may take: past it the host counts as down. */
const PROBE_BOUND_MS = 1000

/** One read host as the metrics and the log see it. */
export interface ReadHostState {
  /** `db2:3306`. */
  readonly host: string
  /** How far behind the writer it was at the last probe, in ms; null when that could not be measured. */
  readonly lagMs: number | null
  /** Why reads leave it, when they do (down, too far behind), else null. */
  readonly problem: string | null
}

/** What the read hosts tell their owner (platform/core/db.ts logs them). */
export interface ReadHostEvents {
  /** Reads went back to the writer: `from`'s problem, and every other host's. */
  toWriter(change: { from: string; reason: string }): void
  /** Reads went to `to` (from the writer, or from another host). */
  toHost(change: { to: string; lagMs: number }): void
}

interface HostSlot {
  label: string
  /** Reads, run again on the writer when the host fails them (read-driver.ts). */
  db: Db
  /** A statement on the host alone, for the probe: a dead host must fail it, not the writer answer it. */
  onHost: ReturnType<typeof openMysqlReader>['onHost']
  lagMs: number | null
  problem: string | null
  probing: boolean
}

/** Rejects after `ms` unless `work` settles first. */
function bounded<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

const HEARTBEAT = 'select beat_ms from db_heartbeat where id = 1'
const beatOf = async (read: Promise<{ rows: Array<{ beat_ms: number | string }> }>) => {
  const { rows } = await read
  if (!rows[0]) throw new Error('db_heartbeat holds no row: run the migrations')
  return Number(rows[0].beat_ms)
}

const reasonOf = (error: unknown) => String((error as Error | null)?.message ?? error)

/** The read hosts of an instance: their pools, their state and the probe (module comment). */
export class ReadHosts {
  private readonly slots: HostSlot[]
  /** The slot reads go to now; -1: the writer. */
  current = -1
  private timer: NodeJS.Timeout | undefined
  private running = false
  private readonly maxLagMs: number

  constructor(
    private readonly writer: Db,
    config: DbConfig & { DB_READ_HOST: string; DB_READ_MAX_LAG_MS: number },
    private readonly events: ReadHostEvents,
  ) {
    this.maxLagMs = config.DB_READ_MAX_LAG_MS
    const hosts = readDbHosts(config.DB_READ_HOST, config.DB_PORT)
    if (typeof hosts === 'string') throw new Error(`DB_READ_HOST ${hosts}`)
    const direct = pooledDirectOf(writer)
    if (!direct) throw new Error('DB_READ_HOST needs a MySQL writer (DB_DRIVER=mysql)')
    this.slots = hosts.map((host, index) => {
      // `trouble` names the slot by its index: nothing needs the slot before the reader is open.
      const { db, onHost } = openMysqlReader(config, host, {
        writer: direct,
        trouble: (error) => this.down(index, reasonOf(error)),
      })
      return { label: hostLabel(host), db, onHost, lagMs: null, problem: 'not probed yet', probing: false }
    })
  }

  /** The handle reads go to now, or null for the writer. */
  reader(): Db | null {
    return this.current < 0 ? null : this.slots[this.current]!.db
  }

  /** Each read host's state, in the order of DB_READ_HOST. */
  states(): ReadHostState[] {
    return this.slots.map(({ label, lagMs, problem }) => ({ host: label, lagMs, problem }))
  }

  /** Starts the probe (its first run at once); reads stay on the writer until a host is found fit. */
  start(): void {
    if (this.timer) return
    void this.probe()
    this.timer = setInterval(() => void this.probe(), PROBE_EVERY_MS)
    this.timer.unref()
  }

  /** One probe: the writer's stamp, each host's, then the writer stamped again when due. Never runs twice at once. */
  async probe(): Promise<void> {
    if (this.running) return
    this.running = true
    try {
      const writerBeat = await bounded(
        beatOf(sql.raw<{ beat_ms: number }>(HEARTBEAT).execute(this.writer)),
        PROBE_BOUND_MS,
        'the writer',
      ).catch((error: unknown) => error as Error)
      await Promise.all(this.slots.map((slot, index) => this.probeHost(slot, index, writerBeat)))
      this.choose()
      await bounded(this.beat(), PROBE_BOUND_MS, 'the heartbeat').catch(() => {})
    } finally {
      this.running = false
    }
  }

  private async probeHost(slot: HostSlot, index: number, writerBeat: number | Error): Promise<void> {
    // A host whose last probe still runs (it hangs) is not asked again meanwhile.
    if (slot.probing) return
    slot.probing = true
    const read = beatOf(slot.onHost<{ beat_ms: number }>(HEARTBEAT, [])).finally(() => (slot.probing = false))
    try {
      const hostBeat = await bounded(read, PROBE_BOUND_MS, slot.label)
      if (writerBeat instanceof Error) {
        slot.lagMs = null
        slot.problem = `its lag is unknown: the writer's heartbeat could not be read (${writerBeat.message})`
        return
      }
      slot.lagMs = Math.max(0, writerBeat - hostBeat)
      slot.problem =
        slot.lagMs > this.maxLagMs
          ? `it is ${slot.lagMs} ms behind the writer (DB_READ_MAX_LAG_MS ${this.maxLagMs})`
          : null
    } catch (error) {
      this.down(index, reasonOf(error), false)
    }
  }

  /** The writer's server stamps its clock, unless an instance did within BEAT_MS. */
  private async beat(): Promise<void> {
    const now = sql`cast(unix_timestamp(now(3)) * 1000 as signed)`
    await sql`update db_heartbeat set beat_ms = ${now} where id = 1 and beat_ms <= ${now} - ${BEAT_MS}`.execute(
      this.writer,
    )
  }

  /** Host `index` failed (a probe, or a read: read-driver.ts): reads leave it now. */
  private down(index: number, reason: string, choose = true): void {
    const slot = this.slots[index]!
    slot.lagMs = null
    slot.problem = `it does not answer (${reason})`
    if (choose) this.choose()
  }

  /** Reads go to the first host of the list that is fit, else to the writer; a change is told once. */
  private choose(): void {
    const fit = this.slots.findIndex((slot) => slot.problem === null)
    if (fit === this.current) return
    const from = this.current
    this.current = fit
    if (fit >= 0) this.events.toHost({ to: this.slots[fit]!.label, lagMs: this.slots[fit]!.lagMs ?? 0 })
    else
      this.events.toWriter({
        from: this.slots[from]!.label,
        reason: this.slots.map((slot) => `${slot.label}: ${slot.problem}`).join('; '),
      })
  }

  /** Stops the probe and closes the hosts' pools. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.current = -1
    await Promise.all(this.slots.map((slot) => slot.db.destroy().catch(() => {})))
  }
}

/** The read hosts of a writer's handle (`createDb`'s), and how a game's handle is made from a host's handle. */
const readHostsOf = new WeakMap<Db, ReadHosts>()
const links = new WeakMap<Db, { base: Db; derive(reader: Db): Db; made: WeakMap<Db, Db> }>()

/** Opens the read hosts of DB_READ_HOST beside `writer` (not started: `start()`); null when it is empty. */
export function openReadHosts(
  writer: Db,
  config: DbConfig & { DB_READ_HOST: string; DB_READ_MAX_LAG_MS: number },
  events: ReadHostEvents,
): ReadHosts | null {
  if (config.DB_READ_HOST.trim() === '') return null
  const hosts = new ReadHosts(writer, config, events)
  readHostsOf.set(writer, hosts)
  return hosts
}

/** The read hosts opened beside `db` (the writer's handle or a game's), if any: for the metrics. */
export function readHostsBeside(db: Db): ReadHosts | undefined {
  return readHostsOf.get(links.get(db)?.base ?? db)
}

/**
 * Makes `derived` (a game's handle over `base`'s pool, db/games.ts) read through `base`'s read hosts:
 * `derive` makes the same game's handle over a read host's pool.
 */
export function linkReader(base: Db, derived: Db, derive: (reader: Db) => Db): void {
  links.set(derived, { base, derive, made: new WeakMap() })
}

/**
 * Where `db`'s reads that may be seconds old go: its game's handle on the read host in use, or `db`
 * itself (no DB_READ_HOST, every host down or too far behind, or `db` a transaction). Never waits.
 */
export function readerOf(db: Db): Db {
  if (db.isTransaction) return db
  const link = links.get(db)
  const reader = readHostsOf.get(link?.base ?? db)?.reader()
  if (!reader) return db
  if (!link) return reader
  let made = link.made.get(reader)
  if (!made) {
    made = link.derive(reader)
    inheritHandle(reader, made)
    link.made.set(reader, made)
  }
  return made
}
