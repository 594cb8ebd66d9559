import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import {
  accessSync,
  chownSync,
  constants,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
} from 'node:fs'
import { rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { createConnection } from 'mysql2/promise'
import pg from 'pg'
import type { Test } from 'tap'
import { freePort } from '../../bench/processes.js'

/**
 * Database servers of a test's own that demand TLS: a MariaDB (require_secure_transport) and a
 * PostgreSQL (pg_hba.conf with hostssl lines only), each in a temporary folder, on a free port, with
 * certificates made for the test by openssl. The machine's own servers are never touched. Every wait
 * is bounded: a server not ready within STARTUP_MS is killed and the test fails with its log.
 */

const STARTUP_MS = 30_000
const STOP_GRACE_MS = 10_000

/** The first of `candidates` that exists and may be run, else the name found on PATH, else null. */
function binary(name: string, candidates: string[]): string | null {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, name))
  for (const file of [...candidates, ...onPath]) {
    try {
      accessSync(file, constants.X_OK)
      return file
    } catch {
      // not there
    }
  }
  return null
}

/** PostgreSQL's server programs live outside PATH on Debian: /usr/lib/postgresql/<version>/bin. */
function postgresBin(name: string): string | null {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : []
  return binary(
    name,
    versions.map((v) => join(root, v, 'bin', name)),
  )
}

const BINARIES = {
  openssl: binary('openssl', []),
  mariadbd: binary('mariadbd', ['/usr/sbin/mariadbd']),
  'mariadb-install-db': binary('mariadb-install-db', ['/usr/bin/mariadb-install-db']),
  initdb: postgresBin('initdb'),
  postgres: postgresBin('postgres'),
}

/** The programs the servers need that this machine lacks (the test is skipped, saying which). */
export function missingPrograms(): string[] {
  return Object.entries(BINARIES)
    .filter(([, file]) => file === null)
    .map(([name]) => name)
}

/** Runs a program to its end within STARTUP_MS, or throws with what it printed. */
function runBounded(file: string, args: string[], options: { uid?: number; gid?: number; cwd?: string } = {}) {
  const result = spawnSync(file, args, { ...options, encoding: 'utf8', timeout: STARTUP_MS, killSignal: 'SIGKILL' })
  if (result.status !== 0) {
    const why = result.error ? String(result.error) : `exit ${result.status ?? result.signal}`
    throw new Error(`${file} ${args.join(' ')}: ${why}\n${result.stdout}${result.stderr}`)
  }
}

/** A temporary folder, removed when the test ends. */
function tempDir(t: Test, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

export interface Certificates {
  /** The authority that signed the servers' certificate. */
  ca: string
  /** An authority that signed nothing here. */
  otherCa: string
  cert: string
  key: string
}

/** A test authority, a server certificate it signs for 127.0.0.1 and localhost, and an unrelated authority. */
export function makeCertificates(t: Test): Certificates {
  const dir = tempDir(t, 'outpost-tls-certs-')
  const file = (name: string) => join(dir, name)
  const openssl = (...args: string[]) => runBounded(BINARIES.openssl!, args)
  const authority = (name: string, subject: string) =>
    openssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      `/CN=${subject}`,
      '-keyout',
      file(`${name}.key`),
      '-out',
      file(`${name}.pem`),
    )
  authority('ca', 'Outpost test authority')
  authority('other', 'An unrelated authority')
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=localhost',
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
  )
  writeFileSync(
    file('server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  )
  openssl(
    'x509',
    '-req',
    '-in',
    file('server.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    file('server.ext'),
    '-out',
    file('server.pem'),
  )
  return { ca: file('ca.pem'), otherCa: file('other.pem'), cert: file('server.pem'), key: file('server.key') }
}

export interface TlsServer {
  port: number
  /** A user the server lets in without a password (over TLS), and a database of the test's own. */
  user: string
  database: string
  /** Runs one statement as the server's administrator, over its local socket. */
  admin(statement: string): Promise<unknown[]>
}

/** Every server started here, killed if the test process exits before its teardown ran. */
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Starts `file` in the background; its output goes to `log` (kept for the error when it fails). */
function startServer(
  t: Test,
  file: string,
  args: string[],
  options: { uid?: number; gid?: number; cwd: string },
  stopSignal: NodeJS.Signals,
) {
  const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(stopSignal)
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS)
      await exited
      clearTimeout(timer)
    }
    running.delete(child)
  }
  return { child, stop, output: () => output }
}

/** Polls `ready` until it resolves, within STARTUP_MS; past it (or when the server died) kills and throws. */
async function waitReady(
  what: string,
  server: ReturnType<typeof startServer>,
  ready: () => Promise<unknown>,
  log: () => string,
) {
  const deadline = Date.now() + STARTUP_MS
  let last: unknown
  while (Date.now() < deadline && server.child.exitCode === null && server.child.signalCode === null) {
    try {
      await ready()
      return
    } catch (error) {
      last = error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  await server.stop()
  throw new Error(`${what} was not ready within ${STARTUP_MS / 1000} s (${String(last)}):\n${log().slice(-3000)}`)
}

/** MariaDB with --require-secure-transport=ON: a plain TCP connection is refused. */
export async function startTlsMariadb(t: Test, certs: Certificates): Promise<TlsServer> {
  const dir = tempDir(t, 'outpost-tls-mariadb-')
  const asRoot = process.getuid?.() === 0
  // mariadbd refuses to run as root unless told to.
  const user = asRoot ? ['--user=root'] : []
  runBounded(BINARIES['mariadb-install-db']!, [
    '--no-defaults',
    ...user,
    `--datadir=${join(dir, 'data')}`,
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ])
  const port = await freePort()
  const socket = join(dir, 'mariadb.sock')
  const server = startServer(
    t,
    BINARIES.mariadbd!,
    [
      '--no-defaults',
      ...user,
      `--datadir=${join(dir, 'data')}`,
      `--port=${port}`,
      '--bind-address=127.0.0.1',
      `--socket=${socket}`,
      `--pid-file=${join(dir, 'mariadb.pid')}`,
      `--log-error=${join(dir, 'error.log')}`,
      '--innodb-buffer-pool-size=32M',
      `--ssl-cert=${certs.cert}`,
      `--ssl-key=${certs.key}`,
      `--ssl-ca=${certs.ca}`,
      '--require-secure-transport=ON',
    ],
    { cwd: dir },
    'SIGTERM',
  )
  t.teardown(server.stop)
  const log = () =>
    server.output() + (existsSync(join(dir, 'error.log')) ? readFileSync(join(dir, 'error.log'), 'utf8') : '')
  const admin = async (statement: string) => {
    const connection = await createConnection({ socketPath: socket, user: 'root', connectTimeout: 5000 })
    try {
      return (await connection.query(statement))[0] as unknown[]
    } finally {
      await connection.end()
    }
  }
  await waitReady('MariaDB', server, () => admin('select 1'), log)
  await admin('CREATE DATABASE outpost_tls CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci')
  return { port, user: 'root', database: 'outpost_tls', admin }
}

/** The uid and gid of the `postgres` account, which PostgreSQL must run as when the test runs as root. */
function postgresAccount(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'))
  if (!line) throw new Error('the test runs as root, and PostgreSQL refuses root: this machine has no postgres account')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** The password of PASSWORD_USER, who signs in with SCRAM (the other users are trusted over TLS). */
export const PASSWORD_USER = 'outpost_password'
export const PASSWORD = 'right-password-1234'

/**
 * PostgreSQL with ssl=on and a pg_hba.conf of `hostssl` lines only: a plain TCP connection matches no
 * line and is refused. PASSWORD_USER must give its password; every other user is trusted (over TLS).
 */
export async function startTlsPostgres(t: Test, certs: Certificates): Promise<TlsServer> {
  const dir = tempDir(t, 'outpost-tls-postgres-')
  const account: { uid?: number; gid?: number } = process.getuid?.() === 0 ? postgresAccount() : {}
  // The server reads its key only when it belongs to the account it runs as, and is private.
  copyFileSync(certs.cert, join(dir, 'server.pem'))
  copyFileSync(certs.key, join(dir, 'server.key'))
  if (account.uid !== undefined)
    for (const name of ['', 'server.pem', 'server.key']) chownSync(join(dir, name), account.uid, account.gid!)
  const data = join(dir, 'data')
  runBounded(
    BINARIES.initdb!,
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-locale', '--no-sync'],
    {
      ...account,
      cwd: dir,
    },
  )
  writeFileSync(
    join(data, 'pg_hba.conf'),
    'local all all trust\n' +
      `hostssl all ${PASSWORD_USER} 127.0.0.1/32 scram-sha-256\n` +
      'hostssl all all 127.0.0.1/32 trust\n',
  )
  if (account.uid !== undefined) chownSync(join(data, 'pg_hba.conf'), account.uid, account.gid!)
  const port = await freePort()
  const server = startServer(
    t,
    BINARIES.postgres!,
    [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'ssl=on',
      '-c',
      `ssl_cert_file=${join(dir, 'server.pem')}`,
      '-c',
      `ssl_key_file=${join(dir, 'server.key')}`,
    ],
    { ...account, cwd: dir },
    'SIGINT',
  )
  t.teardown(server.stop)
  const admin = async (statement: string) => {
    const client = new pg.Client({
      host: dir,
      port,
      user: 'postgres',
      database: 'postgres',
      connectionTimeoutMillis: 5000,
    })
    await client.connect()
    try {
      return (await client.query(statement)).rows
    } finally {
      await client.end()
    }
  }
  await waitReady('PostgreSQL', server, () => admin('select 1'), server.output)
  await admin(`CREATE ROLE ${PASSWORD_USER} LOGIN PASSWORD '${PASSWORD}'`)
  await admin(`CREATE DATABASE outpost_tls ENCODING 'UTF8' TEMPLATE template0`)
  return { port, user: 'postgres', database: 'outpost_tls', admin }
}
