// A MariaDB Galera cluster of the test's own: three (or n) mariadbd processes with the galera-4
// provider, each with its data folder in a temporary folder and its own free ports, never the
// machine's MariaDB. Started, killed with SIGKILL and started again (a node rejoins by IST or SST)
// by the cluster tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { createConnection, type RowDataPacket } from 'mysql2/promise'
import { freePort } from '../../bench/processes.js'

/** Where Debian's galera-4 puts the provider. */
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so'
const MARIADBD = '/usr/sbin/mariadbd'
const INSTALL_DB = '/usr/bin/mariadb-install-db'

/** Why this machine cannot start a cluster (a missing package), if it cannot. */
export function galeraMissing(): string | undefined {
  if (!existsSync(GALERA_PROVIDER)) return `${GALERA_PROVIDER} is missing (apt-get install galera-4)`
  if (!existsSync(MARIADBD) || !existsSync(INSTALL_DB)) return 'mariadbd is missing (apt-get install mariadb-server)'
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

interface NodeFiles {
  dir: string
  config: string
  galeraPort: number
  process?: ChildProcess
}

/** A node's mariadbd exited while it was awaited: no use waiting longer. */
class NodeExit extends Error {}

/** The uid and gid of the mysql user that Debian's MariaDB package makes. */
function mysqlUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'mysql'], { encoding: 'utf8' }).stdout.trim())
  const uid = id('-u')
  const gid = id('-g')
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('no mysql user (apt-get install mariadb-server makes one)')
  return { uid, gid }
}

const until = async (what: string, ms: number, check: () => Promise<boolean>, logs: () => string) => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check().catch((error: unknown) => (error instanceof NodeExit ? Promise.reject(error) : false))) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${what} within ${ms / 1000} s; its log ends:\n${logs().slice(-3000)}`)
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
  const files: NodeFiles[] = ports.map((p, index) => {
    const dir = join(root, `node${index}`)
    mkdirSync(dir, { recursive: true })
    chownSync(dir, owner.uid, owner.gid)
    const config = join(dir, 'my.cnf')
    writeFileSync(
      config,
      [
        '[mysqld]',
        `datadir=${join(dir, 'data')}`,
        `socket=${join(dir, 'mysqld.sock')}`,
        `pid-file=${join(dir, 'mysqld.pid')}`,
        `log-error=${join(dir, 'error.log')}`,
        `port=${p.port}`,
        'bind-address=127.0.0.1',
        'user=mysql',
        'skip-log-bin',
        'binlog_format=ROW',
        'default_storage_engine=InnoDB',
        'innodb_autoinc_lock_mode=2',
        'innodb_buffer_pool_size=64M',
        'innodb_flush_log_at_trx_commit=2',
        'max_connections=200',
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
        '',
      ].join('\n'),
    )
    const installed = spawnSync(
      INSTALL_DB,
      [`--defaults-file=${config}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=mysql'],
      { encoding: 'utf8', timeout: 120_000 },
    )
    if (installed.status !== 0) throw new Error(`mariadb-install-db failed: ${installed.stderr}${installed.stdout}`)
    return { dir, config, galeraPort: p.galera }
  })
  const nodes: GaleraNode[] = ports.map((p, index) => ({
    index,
    port: p.port,
    address: `127.0.0.1:${p.port}`,
    running: false,
  }))
  const log = (i: number) => {
    const file = join(files[i]!.dir, 'error.log')
    return existsSync(file) ? readFileSync(file, 'utf8') : ''
  }
  const url = (i: number) => `mysql://root@127.0.0.1:${nodes[i]!.port}/`
  const query = async (i: number, sql: string, params: unknown[] = []) => {
    const connection = await createConnection({
      host: '127.0.0.1',
      port: nodes[i]!.port,
      user: 'root',
      connectTimeout: 2000,
    })
    try {
      const [rows] = await connection.query(sql, params)
      return rows as RowDataPacket[]
    } finally {
      await connection.end().catch(() => undefined)
    }
  }
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
  const stopNode = (i: number, signal: NodeJS.Signals) =>
    new Promise<void>((resolve) => {
      const child = files[i]!.process
      if (!child || child.exitCode !== null || child.signalCode !== null) return resolve()
      const hard = setTimeout(() => child.kill('SIGKILL'), 30_000)
      child.once('exit', () => {
        clearTimeout(hard)
        resolve()
      })
      child.kill(signal)
    })

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
