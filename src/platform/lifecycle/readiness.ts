import { ServerResponse } from 'node:http';
import type { Express } from 'express';

/**
 * Whether this process should get new traffic. It turns false the moment a
 * shutdown starts, so the load balancer's next readiness probe takes the
 * replica out before its connections close.
 */
export class Readiness {
  private draining = false;

  /**
   * @param problem asked on every readiness probe after the database answers:
   *   why this process cannot serve the database as it is now (a keyring
   *   lacking a key another replica registered since), or undefined.
   */
  constructor(readonly problem: () => Promise<string | undefined> = async () => undefined) {}

  get shuttingDown(): boolean {
    return this.draining;
  }

  startShutdown(): void {
    this.draining = true;
  }
}

/**
 * While a shutdown drains, every answer of `app` says `Connection: close`, so
 * a client on a kept-alive connection opens its next one elsewhere instead of
 * finding this one closed under its next request. Decided when the head is
 * written, so a request that arrived before the signal and answers after it
 * is told too. Express gives every response of the app `app.response` as its
 * prototype: the check lives there, costing nothing per request.
 */
export function closeConnectionsWhileDraining(app: Express, readiness: Readiness): void {
  const writeHead = ServerResponse.prototype.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  Object.defineProperty(app.response, 'writeHead', {
    value(this: ServerResponse, ...args: unknown[]) {
      if (readiness.shuttingDown && !this.headersSent) this.setHeader('Connection', 'close');
      return writeHead.apply(this, args);
    },
  });
}
