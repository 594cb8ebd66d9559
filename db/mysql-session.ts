import type { PoolConnection } from 'mysql2'

/**
 * What each new MySQL connection is told before its first statement (open-mysql.ts runs it as the
 * pool opens the connection: mysql2 queues it ahead of anything the connection is handed out for).
 *
 * On a Galera node (`wsrep_on`), `wsrep_sync_wait = 1`: a read first waits until the node has applied
 * every write the cluster committed before it, so a save made through one node is seen by a load
 * through another right after (read-your-writes wherever the load balancer sends the next request).
 * Measured on a 3-node test cluster, a read on another node right after a commit was stale 188 and 231
 * times in 1,000 without it, never with it, for about 0.03 ms more per read. Writes need no wait: a
 * write over a row another node changed meanwhile fails the cluster's certification and is retried
 * (db/transaction.ts). A server without Galera keeps its setting: `IF` leaves it as it is where
 * wsrep is off, and MySQL, which has no such variable, refuses the statement, which is ignored.
 *
 * On a Galera node, too, `@outpost_count_slot` names the node (a hash of its host, port and node
 * name): the slot its connections write hot counter rows in (`countSlot`, db/dialect.ts), so that
 * submits on two nodes never change the same count row, which the cluster's certification would
 * abort as a conflict. Elsewhere it is 0 (unset on MySQL, which `countSlot` reads as 0): one row.
 */
export const SESSION_SETUP =
  'set session wsrep_sync_wait = if(@@wsrep_on, 1, @@session.wsrep_sync_wait), ' +
  "@outpost_count_slot = if(@@wsrep_on, 1 + (crc32(concat_ws('/', @@hostname, @@port, @@wsrep_node_name)) & 1073741823), 0)"

/** Runs SESSION_SETUP on a new pooled connection; its answer (an error on MySQL) is not waited for. */
export function prepareSession(connection: PoolConnection): void {
  connection.query(SESSION_SETUP, () => {})
}
