/**
 * DB_HOST: one database server, or a comma list of them (`host[:port],…`, a host without a port on
 * DB_PORT) that Outpost writes to one at a time, moving to the next when the one in use stops
 * answering (db/mysql-hosts.ts; docs/deployment.md, "A list of database hosts"). MySQL and MariaDB
 * take a list; PostgreSQL takes one host (its engine says why), SQLite none (db/settings.ts refuses the rest).
 */

/** The settings that say where the servers are (config.ts, read here without importing it). */
interface HostSettings {
  DB_HOST: string
  DB_PORT: number
}

/** One database server of DB_HOST. */
export interface DbHost {
  host: string
  port: number
}

const NAME = /^[A-Za-z0-9_.-]+$/
/** An IPv6 address as written without brackets (`::1`, `fe80::1%eth0`): it has two colons at least. */
const BARE_IPV6 = /^(?=(?:[^:]*:){2})[0-9A-Fa-f:.]+(?:%[\w.-]+)?$/
const BRACKETED = /^\[([0-9A-Fa-f:.]+(?:%[\w.-]+)?)\](?::(.*))?$/

/** `db:3306`, `[::1]:3306`: a host as the logs, the messages and the metrics name it. */
export function hostLabel({ host, port }: DbHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`
}

/** The example a message proposes, on this port. */
const example = (port: number) => `db1:${port},db2:${port}`

/** One entry of the list, or the sentence saying what is wrong with it. */
function parseEntry(entry: string, defaultPort: number): DbHost | string {
  let host = entry
  let portText: string | undefined
  if (entry.startsWith('[')) {
    const match = BRACKETED.exec(entry)
    if (!match) return `the entry "${entry}" is not an IPv6 address in brackets: write [::1] or [::1]:${defaultPort}`
    ;[, host, portText] = match as unknown as [string, string, string | undefined]
  } else if (!BARE_IPV6.test(entry)) {
    if (!/^[A-Za-z0-9_.:-]+$/.test(entry) || !NAME.test(entry.replace(/:[^:]*$/, '') || 'x')) {
      return (
        `the entry "${entry}" is not a host name or address: DB_HOST takes names such as db.internal or ` +
        `addresses such as 10.0.0.5, each with an optional :port (${example(defaultPort)})`
      )
    }
    const colon = entry.lastIndexOf(':')
    if (colon >= 0) [host, portText] = [entry.slice(0, colon), entry.slice(colon + 1)]
    if (host === '') return `the entry "${entry}" names no host before its port`
  }
  if (portText === undefined) return { host, port: defaultPort }
  if (portText === '') {
    return `the entry "${entry}" has no port after its colon: write ${entry.slice(0, -1)} (on DB_PORT, ${defaultPort}) or ${entry}${defaultPort}`
  }
  const port = /^\d{1,5}$/.test(portText) ? Number(portText) : NaN
  return port >= 1 && port <= 65535 ? { host, port } : `the port of "${entry}" must be a number from 1 to 65535`
}

/** The servers `value` lists, a host without a port on `defaultPort`; or why it is not a list of hosts. */
export function readDbHosts(value: string, defaultPort: number): DbHost[] | string {
  const entries = value.split(',').map((entry) => entry.trim())
  if (entries.some((entry) => entry === '')) {
    return (
      `has an empty entry in "${value}": list the servers as host[:port] with one comma between two ` +
      `and none at the ends (${example(defaultPort)})`
    )
  }
  const hosts: DbHost[] = []
  for (const entry of entries) {
    const parsed = parseEntry(entry, defaultPort)
    if (typeof parsed === 'string') return parsed
    const label = hostLabel(parsed)
    if (hosts.some((known) => hostLabel(known) === label)) return `lists ${label} twice: name each server once`
    hosts.push(parsed)
  }
  return hosts
}

/**
 * The servers `value` lists (`host[:port],…`), a host without a port on `defaultPort`. Throws an
 * error saying what is wrong with the first bad entry and the form expected.
 */
export function parseDbHosts(value: string, defaultPort: number): DbHost[] {
  const parsed = readDbHosts(value, defaultPort)
  if (typeof parsed === 'string') throw new Error(`DB_HOST ${parsed}`)
  return parsed
}

/** The servers of a configuration loadConfig accepted (so DB_HOST is of a good form). */
export function dbHosts(config: HostSettings): DbHost[] {
  return parseDbHosts(config.DB_HOST, config.DB_PORT)
}

/** The configuration with DB_HOST and DB_PORT naming one server of its list: what a driver connects to. */
export function atHost<C extends HostSettings>(config: C, host: DbHost): C {
  return { ...config, DB_HOST: host.host, DB_PORT: host.port }
}

/** `db1:3306,db2:3306`: every server DB_HOST names, as the start line and the messages show them. */
export function describeHosts(config: HostSettings): string {
  const parsed = readDbHosts(config.DB_HOST, config.DB_PORT)
  return typeof parsed === 'string' ? `${config.DB_HOST}:${config.DB_PORT}` : parsed.map(hostLabel).join(',')
}
