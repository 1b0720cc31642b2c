import type { ErrorCode } from '../errors/error-catalog';

/**
 * What a PostgreSQL error (or a failure to reach PostgreSQL) means to a caller.
 * Input errors should never get this far, since validation refuses them first;
 * these mappings are the net under it, so that a gap answers a 4xx and not a 500.
 */
const BY_SQLSTATE: Record<string, ErrorCode> = {
  '22P02': 'VALIDATION_FAILED', // invalid_text_representation
  '22001': 'VALIDATION_FAILED', // string_data_right_truncation
  '22021': 'VALIDATION_FAILED', // character_not_in_repertoire
  '23505': 'CONFLICT', // unique_violation: a concurrent insert won
  '23503': 'CONFLICT', // foreign_key_violation: a referenced row went away concurrently
  '40001': 'CONFLICT', // serialization_failure
  '40P01': 'CONFLICT', // deadlock_detected
  '57014': 'SERVICE_UNAVAILABLE', // query_canceled (statement_timeout)
  '57P01': 'SERVICE_UNAVAILABLE', // admin_shutdown (a switchover restarts the old primary)
  '57P02': 'SERVICE_UNAVAILABLE', // crash_shutdown
  '25006': 'SERVICE_UNAVAILABLE', // read_only_sql_transaction: the server became a standby; a retry finds the new primary
  '57P03': 'SERVICE_UNAVAILABLE', // cannot_connect_now
  '53300': 'SERVICE_UNAVAILABLE', // too_many_connections
  // The server refused the connection itself: a password rotated under the
  // service, a role or database dropped. Not the caller's fault, and gone once
  // the operator mends it (docs/runbook.md): 503, never 500.
  '28000': 'SERVICE_UNAVAILABLE', // invalid_authorization_specification (pg_hba.conf, a role that may not log in)
  '28P01': 'SERVICE_UNAVAILABLE', // invalid_password
  '3D000': 'SERVICE_UNAVAILABLE', // invalid_catalog_name: the database does not exist
};

const CONNECTION_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * How `pg` words a connection lost under a query, which carries no code. The
 * second is what a transaction rejects with when the connection died mid-way
 * and Knex's ROLLBACK could not be sent (the server rolls back on its own).
 */
const CONNECTION_LOST_MESSAGES = [
  'Connection terminated',
  'connection error and is not queryable',
  'Client was closed and is not queryable',
  // query_timeout: the client gave up waiting for an answer lost on the way.
  'Query read timeout',
];

/**
 * pg's connectionTimeoutMillis, word for word: a new connection that did not
 * complete its start-up in time. The pool hands it to whichever acquire was
 * waiting for that connection. Matched whole: the words are too common to
 * match inside other messages.
 */
const CONNECT_TIMEOUT_MESSAGE = 'timeout expired';

export function classifyDatabaseError(error: unknown): ErrorCode | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { code, name, message } = error as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string') {
    const mapped = BY_SQLSTATE[code];
    if (mapped !== undefined) return mapped;
    if (code.startsWith('08') || CONNECTION_FAILURES.has(code)) return 'SERVICE_UNAVAILABLE';
  }
  // Knex gives up waiting for a pooled connection with this error.
  if (name === 'KnexTimeoutError') return 'SERVICE_UNAVAILABLE';
  if (typeof message === 'string' && CONNECTION_LOST_MESSAGES.some((lost) => message.includes(lost))) return 'SERVICE_UNAVAILABLE';
  if (message === CONNECT_TIMEOUT_MESSAGE) return 'SERVICE_UNAVAILABLE';
  return undefined;
}
