import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ERROR_CATALOG, type ErrorCode } from '../errors/error-catalog';
import { toErrorMessage } from '../errors/to-error-message';

/** What Node's HTTP parser and timers report, as the catalog names it. */
function errorCodeOf(error: NodeJS.ErrnoException): ErrorCode {
  if (error.code === 'HPE_HEADER_OVERFLOW') return 'REQUEST_HEADERS_TOO_LARGE';
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  return 'MALFORMED_HTTP_REQUEST';
}

/**
 * The server's `clientError` handler. Requests Node cannot parse (control
 * characters in a header, a head over the size limit) or that arrive too
 * slowly never reach Express; Node's default answers them with an empty body.
 * This answers the same status with an ErrorMessage, then closes the
 * connection, since the rest of its bytes cannot be trusted.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  // Nothing to answer on a connection the client already dropped.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const errorCode = errorCodeOf(error);
  const { status } = ERROR_CATALOG[errorCode];
  const body = JSON.stringify(toErrorMessage(errorCode, randomUUID()));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Cache-Control: no-store',
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
