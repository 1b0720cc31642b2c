import { createServer, type RequestListener, type Server } from 'node:http';
import { answerClientError } from './client-error';

export interface HttpLimits {
  /** Time allowed to receive a request's headers: a slow-headers client is cut off after it. */
  headersTimeoutMs: number;
  /** Time allowed to receive a whole request, body included: a slow-body client is cut off after it. */
  requestTimeoutMs: number;
  /**
   * How long an idle keep-alive connection stays open. Longer than the load
   * balancer's own idle timeout (60 s on AWS ALB, nginx's upstream keepalive
   * default), so the balancer, not the service, closes idle connections and
   * never sends a request down one the service has just closed.
   */
  keepAliveTimeoutMs: number;
  /** Largest request head, in bytes; a larger one is answered 431 by Node. */
  maxHeaderSize: number;
}

/** The API's HTTP server with its limits set on purpose rather than left to Node's defaults. */
export function createHttpServer(app: RequestListener, limits: HttpLimits): Server {
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderSize,
      // Node checks the two timeouts below on this interval (30 s by default),
      // which would let a slow client hold a socket that much longer.
      connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
    },
    app,
  );
  server.on('clientError', answerClientError);
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  return server;
}
