// A MariaDB Galera cluster of the test's own: three (or n) mariadbd processes with the galera-4
// provider, each with its data folder in a temporary folder and its own free ports, never the
// machine's MariaDB. Started, killed with SIGKILL and started again (a node rejoins by IST or SST)
// by the cluster tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { RowDataPacket } from 'mysql2/promise'
import { freePort } from '../../bench/processes.js'
import {
  MARIADBD,
  mariadbMissing,
  mysqlUser,
  NodeExit,
  prepareNode,
  queryNode,
  stopProcess,
  until,
  type NodeFolder,
} from './mariadb-nodes.js'

/** Where Debian's galera-4 puts the provider. */
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'

/** Why this machine cannot start a cluster (a missing package), if it cannot. */
export function galeraMissing(): string | undefined {
  if (!existsSync(GALERA_PROVIDER)) return `${GALERA_PROVIDER} is missing (apt-get install galera-4)`
  const missing = mariadbMissing()
  if (missing) return missing
  if (spawnSync('rsync', ['--version']).status !== 0) return 'rsync is missing (apt-get install rsync)'
  return undefined
}

export interface GaleraNode {
  /** 0-based. */
  index: number
  /** The MySQL port, on 127.0.0.1. */
  port: number
  /** `host:port` as DB_HOST lists it. */
  address: string
  /** Whether its mariadbd runs. */
  running: boolean
}

export interface GaleraCluster {
  nodes: GaleraNode[]
  /** The server URL of node `i` (root, no password), for the tests' database helpers. */
  url(i: number): string
  /** Runs SQL on node `i` (a connection of its own), answering the rows. */
  query(i: number, sql: string, params?: unknown[]): Promise<RowDataPacket[]>
  /** Kills node `i` with SIGKILL: the cluster goes on without it. */
  kill(i: number): Promise<void>
  /** Starts node `i` again: it rejoins and is back when it is Synced. */
  start(i: number): Promise<void>
  /** The error log of node `i`, for a failure's message. */
  log(i: number): string
}

interface NodeFiles extends NodeFolder {
  process?: ChildProcess
}

/**
 * Starts a cluster of `size` nodes (the first bootstraps it, the others join by SST) and stops it
 * when the test ends. Each node is small: a 64 MB buffer pool, ROW binlog format and interleaved
 * auto-increment locks, as Galera needs.
 */
export async function startGalera(t: Test, size = 3): Promise<GaleraCluster> {
  const root = mkdtempSync(join(tmpdir(), 'outpost-galera-'))
  // The nodes run as the system's mysql user, not root: rsync's SST daemon started by root would
  // switch to nobody, who may not write the joiner's data folder.
  const owner = mysqlUser()
  chownSync(root, owner.uid, owner.gid)
  const name = `outpost-test-${randomBytes(4).toString('hex')}`
  const ports = await Promise.all(
    Array.from({ length: size }, async () => ({
      port: await freePort(),
      galera: await freePort(),
      ist: await freePort(),
      sst: await freePort(),
    })),
  )
  const members = ports.map((p) => `127.0.0.1:${p.galera}`).join(',')
  const files: NodeFiles[] = ports.map((p, index) =>
    prepareNode(join(root, `node${index}`), p.port, owner, [
      'skip-log-bin',
      'binlog_format=ROW',
      'innodb_autoinc_lock_mode=2',
      'wsrep_on=ON',
      `wsrep_provider=${GALERA_PROVIDER}`,
      `wsrep_cluster_name=${name}`,
      `wsrep_cluster_address=gcomm://${members}`,
      `wsrep_node_name=node${index}`,
      `wsrep_node_address=127.0.0.1:${p.galera}`,
      `wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:${p.galera};ist.recv_addr=127.0.0.1:${p.ist};gcache.size=64M"`,
      'wsrep_sst_method=rsync',
      `wsrep_sst_receive_address=127.0.0.1:${p.sst}`,
      'wsrep_slave_threads=2',
    ]),
  )
  const nodes: GaleraNode[] = ports.map((p, index) => ({
    index,
    port: p.port,
    address: `127.0.0.1:${p.port}`,
    running: false,
  }))
  const log = (i: number) => files[i]!.log()
  const url = (i: number) => `mysql://root@127.0.0.1:${nodes[i]!.port}/`
  const query = (i: number, sql: string, params: unknown[] = []) => queryNode(nodes[i]!.port, sql, params)
  const status = async (i: number, variable: string) =>
    (await query(i, 'SHOW STATUS LIKE ?', [variable]))[0]?.Value as string | undefined

  const launch = async (i: number, bootstrap: boolean) => {
    const args = [`--defaults-file=${files[i]!.config}`, ...(bootstrap ? ['--wsrep-new-cluster'] : [])]
    const child = spawn(MARIADBD, args, { stdio: 'ignore' })
    files[i]!.process = child
    nodes[i]!.running = true
    child.once('exit', () => {
      if (files[i]!.process === child) nodes[i]!.running = false
    })
    await until(
      `node ${i} did not become Synced`,
      120_000,
      async () => {
        if (child.exitCode !== null)
          throw new NodeExit(`node ${i}'s mariadbd exited (${child.exitCode}):\n${log(i).slice(-3000)}`)
        return (await status(i, 'wsrep_local_state_comment')) === 'Synced' && (await status(i, 'wsrep_ready')) === 'ON'
      },
      () => log(i),
    )
  }
  const stopNode = (i: number, signal: NodeJS.Signals) => stopProcess(files[i]!.process, signal)

  t.teardown(async () => {
    // The joiners first, then the node that bootstrapped, so none waits for a quorum that left.
    for (let i = size - 1; i >= 0; i--) await stopNode(i, 'SIGTERM')
    if (!process.env.KEEP_GALERA) rmSync(root, { recursive: true, force: true })
  })
  await launch(0, true)
  for (let i = 1; i < size; i++) await launch(i, false)
  const clusterSize = await status(0, 'wsrep_cluster_size')
  if (clusterSize !== String(size)) throw new Error(`the cluster has ${clusterSize} nodes, not ${size}`)

  return {
    nodes,
    url,
    query,
    log,
    kill: async (i) => {
      await stopNode(i, 'SIGKILL')
      nodes[i]!.running = false
    },
    start: (i) => launch(i, false),
  }
}
