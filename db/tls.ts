import { readFileSync } from 'node:fs'
import type { ConnectionOptions } from 'node:tls'
import type { SslOptions } from 'mysql2'
import type { DbConfig } from './config.js'

/**
 * TLS to a database server (DB_SSL, DB_SSL_CA):
 * - `off`: plain TCP, for a server on the same host or a private network;
 * - `require`: encrypted, the server's certificate not checked (it guards against listening, not
 *   against a server that impersonates the real one);
 * - `verify`: encrypted, and the certificate must be signed by DB_SSL_CA (a PEM file), or by a
 *   certificate authority of the system's store when DB_SSL_CA is empty, and name DB_HOST.
 */
export function tlsOptions(
  config: Pick<DbConfig, 'DB_SSL' | 'DB_SSL_CA'>,
): (ConnectionOptions & { ca?: string }) | undefined {
  if (config.DB_SSL === 'require') return { rejectUnauthorized: false }
  if (config.DB_SSL === 'verify') {
    return { rejectUnauthorized: true, ...(config.DB_SSL_CA ? { ca: readCa(config.DB_SSL_CA) } : {}) }
  }
  // `off`, or a configuration made in code without the setting (loadConfig always sets it): plain TCP.
  return undefined
}

function readCa(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    throw new Error(
      `DB_SSL_CA names ${path}, which cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): ` +
        "set it to the PEM file of the certificate authority that signed the database server's certificate",
      { cause: error },
    )
  }
}

/** mysql2's `ssl` option. */
export const mysqlTls = (config: Pick<DbConfig, 'DB_SSL' | 'DB_SSL_CA'>): SslOptions | undefined => {
  const options = tlsOptions(config)
  return options && { rejectUnauthorized: options.rejectUnauthorized, ca: options.ca }
}

/** node-postgres's `ssl` option (false: no TLS, as node-postgres reads PGSSLMODE otherwise). */
export const postgresTls = (config: Pick<DbConfig, 'DB_SSL' | 'DB_SSL_CA'>) => tlsOptions(config) ?? false
