import type { StartTarget } from './engine.js'
import { describeHosts } from './hosts.js'
import { POOL_WAIT_TIMEOUT, QUERY_TIMEOUT } from './pool-bounds.js'

/**
 * What the server engines tell an operator in the same words (db/engines/mysql.ts, postgres.ts): a
 * server that cannot be reached, TLS that fails, and the shell words of the commands they propose.
 * Each engine explains its own error codes and hands the rest here.
 */

/** The first `code` along an error's chain of causes (Kysely and the migrator wrap the driver's error). */
export function codeOf(error: unknown): { code?: string; message: string } {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown[] }
    if (typeof code === 'string') return { code, message: String((current as Error).message) }
    // A host name with several addresses fails with one error per address tried.
    current = cause ?? errors?.[0]
  }
  return { message: String((error as Error | null)?.message ?? error) }
}

/** `PostgreSQL at db.internal:5432`; with a list of hosts, `MySQL at db1:3306,db2:3306`. */
export const serverAt = (title: string, target: Pick<StartTarget, 'DB_HOST' | 'DB_PORT'>) =>
  `${title} at ${describeHosts(target)}`

/** What a connection that never reached the server's greeting means, whatever the engine. */
export function networkProblem(code: string | undefined, title: string, target: StartTarget): string | null {
  const at = serverAt(title, target)
  switch (code) {
    case 'ECONNREFUSED':
      return (
        `cannot connect to ${at} (connection refused): start the ${title} server, ` +
        'or set DB_HOST and DB_PORT in .env to where it listens'
      )
    case 'ETIMEDOUT':
    case POOL_WAIT_TIMEOUT:
    case QUERY_TIMEOUT:
      return (
        `cannot connect to ${at} (no answer within ${target.DB_QUERY_TIMEOUT_MS} ms): check DB_HOST and DB_PORT, ` +
        'that the server is up and not overloaded, and that no firewall drops the connection'
      )
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot connect to ${at} (host not found): set DB_HOST in .env to a name or address this machine resolves`
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `cannot connect to ${at} (host unreachable): check DB_HOST and this machine's network route to it`
    case 'ECONNRESET':
      return (
        `cannot connect to ${at} (the connection was closed at once): check that DB_PORT is ${title}'s port ` +
        'and that the server accepts connections from this host'
      )
    default:
      return null
  }
}

/** Node's codes for a certificate chain that does not lead to an authority it was told to trust. */
const UNTRUSTED_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'INVALID_CA',
])
/** The same failures by their messages: mysql2 replaces the code of every TLS failure with its own. */
const UNTRUSTED_MESSAGE =
  /self[- ]signed certificate|unable to verify the first certificate|unable to get (local )?issuer certificate|certificate signature failure|certificate not trusted/i
const WRONG_NAME_MESSAGE = /does not match certificate's altnames/i
const DATES_MESSAGE = /certificate has expired|certificate is not yet valid/i

/**
 * What a TLS handshake that failed means (DB_SSL=require or verify); null for any other error.
 * `handshakeCode` is the code a driver gives every TLS failure when it hides Node's own.
 */
export function tlsProblem(
  code: string | undefined,
  message: string,
  title: string,
  target: StartTarget,
  handshakeCode?: string,
): string | null {
  const at = serverAt(title, target)
  const handshake = code !== undefined && code === handshakeCode
  const orRequire = 'or set DB_SSL=require to encrypt without checking the certificate'
  if ((code !== undefined && UNTRUSTED_CODES.has(code)) || (handshake && UNTRUSTED_MESSAGE.test(message))) {
    return target.DB_SSL_CA
      ? `the certificate of ${at} is not signed by the authority in DB_SSL_CA, ${target.DB_SSL_CA} (${message}), ` +
          `which DB_SSL=verify requires: ${target.where('DB_SSL_CA')} must name the PEM file of the authority ` +
          `that signed the server's certificate (a provider publishes its own), ${orRequire}`
      : `the certificate of ${at} is not signed by an authority of this machine's store (${message}), which ` +
          'DB_SSL=verify with DB_SSL_CA empty requires: set DB_SSL_CA in .env to the PEM file of the authority ' +
          `that signed the server's certificate (a provider publishes its own), ${orRequire}`
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || (handshake && WRONG_NAME_MESSAGE.test(message))) {
    return (
      `the certificate of ${at} does not name DB_HOST "${target.DB_HOST}" (${message}), which DB_SSL=verify ` +
      `requires: set DB_HOST in .env to a name the certificate lists (the provider's host name, not an address or an alias), ${orRequire}`
    )
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID' || (handshake && DATES_MESSAGE.test(message))) {
    return `the certificate of ${at} is outside its dates of validity (${message}): renew the server's certificate, and check this machine's clock`
  }
  if (handshake || code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_')) {
    return `the TLS handshake with ${at} failed (${message}): check DB_SSL and DB_SSL_CA in .env, and the server's TLS settings`
  }
  return null
}

/** DB_SSL=require or verify, and the server offers no TLS. `how`: how to turn it on at the server. */
export const noTls = (title: string, target: StartTarget, how: string) =>
  `${serverAt(title, target)} does not offer TLS, and DB_SSL is ${target.DB_SSL}: turn TLS on at the server ` +
  `(${how}), or set DB_SSL=off in .env when the connection stays on this host or a private network`

/** DB_SSL=off, and the server accepts this account only over TLS. */
export const tlsRequired = (title: string, target: StartTarget) =>
  `${serverAt(title, target)} accepts this connection only over TLS, and DB_SSL is off: ` +
  "set DB_SSL=require in .env (encrypted), or DB_SSL=verify (encrypted, and the server's certificate checked " +
  "against DB_SSL_CA or this machine's authorities)"

/** A value as one shell word: bare when it is safe, single-quoted otherwise. */
export function shellWord(value: string): string {
  return /^[A-Za-z0-9_.:@%+=/-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`
}
