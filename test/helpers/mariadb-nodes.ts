// MariaDB servers of a test's own (never the machine's): each mariadbd with its data folder in a
// temporary folder, on a free port, run as the system's mysql user. What the Galera cluster
// (galera.ts) and the primary with its replica (replication.ts) are both made of.
import { spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync, chownSync } from 'node:fs'
import { join } from 'node:path'
import { createConnection, type RowDataPacket } from 'mysql2/promise'

export const MARIADBD = '/usr/sbin/mariadbd'
const INSTALL_DB = '/usr/bin/mariadb-install-db'

/** Why this machine cannot start a server of its own, if it cannot. */
export function mariadbMissing(): string | undefined {
  if (!existsSync(MARIADBD) || !existsSync(INSTALL_DB)) return 'mariadbd is missing (apt-get install mariadb-server)'
  return undefined
}

/** A server's mariadbd exited while it was awaited: no use waiting longer. */
export class NodeExit extends Error {}

/** The uid and gid of the mysql user that Debian's MariaDB package makes. */
export function mysqlUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(spawnSync('id', [flag, 'mysql'], { encoding: 'utf8' }).stdout.trim())
  const uid = id('-u')
  const gid = id('-g')
  if (!Number.isInteger(uid) || uid <= 0) throw new Error('no mysql user (apt-get install mariadb-server makes one)')
  return { uid, gid }
}

/** Waits until `check` holds, polling every 250 ms, for at most `ms`; a NodeExit stops the wait at once. */
export async function until(what: string, ms: number, check: () => Promise<boolean>, logs: () => string) {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (await check().catch((error: unknown) => (error instanceof NodeExit ? Promise.reject(error) : false))) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`${what} within ${ms / 1000} s; its log ends:\n${logs().slice(-3000)}`)
}

/** A server's folder and configuration, made and initialised (not started). */
export interface NodeFolder {
  dir: string
  config: string
  port: number
  /** Its error log so far. */
  log(): string
}

/**
 * Makes `dir` (owned by `owner`) with a my.cnf for a small server on `port` (a 64 MB buffer pool,
 * lazy flushes) plus `extra` lines, and initialises its data folder.
 */
export function prepareNode(
  dir: string,
  port: number,
  owner: { uid: number; gid: number },
  extra: string[],
): NodeFolder {
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
      `port=${port}`,
      'bind-address=127.0.0.1',
      'user=mysql',
      'default_storage_engine=InnoDB',
      'innodb_buffer_pool_size=64M',
      'innodb_flush_log_at_trx_commit=2',
      'max_connections=200',
      ...extra,
      '',
    ].join('\n'),
  )
  const installed = spawnSync(
    INSTALL_DB,
    [`--defaults-file=${config}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=mysql'],
    { encoding: 'utf8', timeout: 120_000 },
  )
  if (installed.status !== 0) throw new Error(`mariadb-install-db failed: ${installed.stderr}${installed.stdout}`)
  const file = join(dir, 'error.log')
  return { dir, config, port, log: () => (existsSync(file) ? readFileSync(file, 'utf8') : '') }
}

/** Runs SQL on the server at `port` as root (a connection of its own), answering the rows. */
export async function queryNode(port: number, sql: string, params: unknown[] = []): Promise<RowDataPacket[]> {
  const connection = await createConnection({ host: '127.0.0.1', port, user: 'root', connectTimeout: 2000 })
  try {
    const [rows] = await connection.query(sql, params)
    return rows as RowDataPacket[]
  } finally {
    await connection.end().catch(() => undefined)
  }
}

/** Stops a server's process with `signal` (SIGKILL after 30 s), resolving once it has exited. */
export function stopProcess(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return resolve()
    const hard = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.once('exit', () => {
      clearTimeout(hard)
      resolve()
    })
    child.kill(signal)
  })
}
