// A MariaDB primary and one async replica of the test's own (mariadb-nodes.ts): two mariadbd
// processes in a temporary folder, on free ports, never the machine's MariaDB. The replica follows
// the primary's binary log by GTID from its first event; a test holds it back (its SQL thread
// stopped), lets it go, or kills it with SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process'
import { chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { RowDataPacket } from 'mysql2/promise'
import { freePort } from '../../bench/processes.js'
import { MARIADBD, mysqlUser, NodeExit, prepareNode, queryNode, stopProcess, until } from './mariadb-nodes.js'

export { mariadbMissing as replicationMissing } from './mariadb-nodes.js'

/** One server of the pair. */
export interface ReplicatedServer {
  port: number
  /** `127.0.0.1:port`, as DB_HOST and DB_READ_HOST list it. */
  address: string
}

export interface Replication {
  primary: ReplicatedServer
  replica: ReplicatedServer
  /** Runs SQL on the primary or the replica (a connection of its own), answering the rows. */
  query(on: 'primary' | 'replica', sql: string, params?: unknown[]): Promise<RowDataPacket[]>
  /** Stops applying what the primary sends (the replica falls behind, its I/O thread still reading). */
  hold(): Promise<void>
  /** Applies again: the replica catches up. */
  release(): Promise<void>
  /** Waits until the replica has applied everything the primary wrote so far. */
  caughtUp(): Promise<void>
  /** Kills the replica with SIGKILL. */
  killReplica(): Promise<void>
}

/** Starts the primary (binary log on, ROW format) and its replica, and stops both when the test ends. */
export async function startReplication(t: Test): Promise<Replication> {
  const root = mkdtempSync(join(tmpdir(), 'outpost-replication-'))
  const owner = mysqlUser()
  chownSync(root, owner.uid, owner.gid)
  const [primaryPort, replicaPort] = [await freePort(), await freePort()]
  const primaryFiles = prepareNode(join(root, 'primary'), primaryPort, owner, [
    'server_id=1',
    'log_bin=mysql-bin',
    'binlog_format=ROW',
  ])
  const replicaFiles = prepareNode(join(root, 'replica'), replicaPort, owner, [
    'server_id=2',
    'skip-log-bin',
    'read_only=ON',
    'skip_slave_start=ON',
  ])
  const processes: ChildProcess[] = []
  t.teardown(async () => {
    for (const child of processes.reverse()) await stopProcess(child, 'SIGTERM')
    if (!process.env.KEEP_REPLICATION) rmSync(root, { recursive: true, force: true })
  })
  const launch = async (files: typeof primaryFiles, name: string) => {
    const child = spawn(MARIADBD, [`--defaults-file=${files.config}`], { stdio: 'ignore' })
    processes.push(child)
    await until(
      `the ${name} did not answer`,
      60_000,
      async () => {
        if (child.exitCode !== null) throw new NodeExit(`the ${name}'s mariadbd exited (${child.exitCode})`)
        return (await queryNode(files.port, 'SELECT 1 AS ok'))[0]?.ok === 1
      },
      files.log,
    )
    return child
  }
  await launch(primaryFiles, 'primary')
  const replicaProcess = await launch(replicaFiles, 'replica')
  await queryNode(
    replicaPort,
    `CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=${primaryPort}, MASTER_USER='root', MASTER_PASSWORD='', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1`,
  )
  await queryNode(replicaPort, 'START SLAVE')
  const query = (on: 'primary' | 'replica', sql: string, params: unknown[] = []) =>
    queryNode(on === 'primary' ? primaryPort : replicaPort, sql, params)
  const caughtUp = async () => {
    const [position] = await query('primary', 'SELECT @@gtid_binlog_pos AS pos')
    const wanted = String(position?.pos ?? '')
    if (wanted === '') return
    const [reached] = await query('replica', 'SELECT MASTER_GTID_WAIT(?, 30) AS reached', [wanted])
    if (Number(reached?.reached) !== 0) {
      const status = await query('replica', 'SHOW SLAVE STATUS')
      throw new Error(`the replica did not reach ${wanted} within 30 s: ${JSON.stringify(status[0] ?? {})}`)
    }
  }
  await query('primary', 'SELECT 1')
  await caughtUp()
  return {
    primary: { port: primaryPort, address: `127.0.0.1:${primaryPort}` },
    replica: { port: replicaPort, address: `127.0.0.1:${replicaPort}` },
    query,
    hold: async () => void (await query('replica', 'STOP SLAVE SQL_THREAD')),
    release: async () => void (await query('replica', 'START SLAVE SQL_THREAD')),
    caughtUp,
    killReplica: () => stopProcess(replicaProcess, 'SIGKILL'),
  }
}
