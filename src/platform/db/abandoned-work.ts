import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import pg from 'pg';

/**
 * Database work nobody waits for any more, stopped rather than left to run:
 * a request answered 503 at its deadline, or every connection still in use
 * when a shutdown's time is up. Each connection such work holds is given a
 * cancel request (the server stops the statement it runs) and closed (a
 * transaction never reaches its COMMIT, and the pool gets its slot back at
 * once instead of when a slow database answers).
 *
 * Connections are tracked per request through AsyncLocalStorage: the pool's
 * acquire records the connection under the request that asked for it.
 */

/** What one request holds; `abandoned` once its deadline answered for it. */
export interface WorkScope {
  held: Set<pg.Client>;
  abandoned: boolean;
}

const currentScope = new AsyncLocalStorage<WorkScope>();
/** Every connection in use, in a request or not (the webhook dispatcher, the sweeps). */
const inUse = new Set<pg.Client>();
const scopeOf = new WeakMap<pg.Client, WorkScope>();

/** Runs `work` (a request's handling) in a scope of its own; answers the scope, to abandon later. */
export function runInWorkScope(work: () => void): WorkScope {
  const scope: WorkScope = { held: new Set(), abandoned: false };
  currentScope.run(scope, work);
  return scope;
}

export class AbandonedWorkError extends Error {
  override readonly name = 'AbandonedWorkError';
}

/** Cancels what the connection runs (a fresh connection carries the cancel request) and closes it. */
function stop(connection: pg.Client): void {
  const active = (connection as unknown as { activeQuery?: unknown }).activeQuery;
  if (active) {
    const canceller = new pg.Client((connection as unknown as { connectionParameters: pg.ClientConfig }).connectionParameters);
    canceller.on('error', () => undefined);
    try {
      (canceller as unknown as { cancel(target: pg.Client, query: unknown): void }).cancel(connection, active);
    } catch {
      // The close below ends the work all the same; the cancel only ends it sooner on the server.
    }
  }
  connection.end().catch(() => undefined);
}

/** Stops the work a request still has on the database, and any it would start: its deadline has answered for it. */
export function abandonScope(scope: WorkScope): void {
  scope.abandoned = true;
  for (const connection of scope.held) stop(connection);
}

/** Stops every connection still in use: a shutdown whose time is up. Answers how many there were. */
export function abandonAllWork(): number {
  const count = inUse.size;
  for (const connection of inUse) stop(connection);
  return count;
}

/**
 * Records each connection Knex's pool hands out under the request (scope)
 * that asked for it, so that it can be abandoned. A request already
 * abandoned gets no new connection. For the PostgreSQL client only: PGlite is
 * one connection inside this process, with nothing to cancel over a network.
 */
export function trackConnections(knex: Knex): void {
  const client = knex.client as {
    acquireConnection(): Promise<pg.Client>;
    releaseConnection(connection: pg.Client): Promise<void>;
  };
  const acquire = client.acquireConnection.bind(client);
  const release = client.releaseConnection.bind(client);
  client.acquireConnection = async () => {
    const connection = await acquire();
    const scope = currentScope.getStore();
    if (scope?.abandoned) {
      await release(connection);
      throw new AbandonedWorkError('the request was answered at its deadline');
    }
    inUse.add(connection);
    if (scope !== undefined) {
      scope.held.add(connection);
      scopeOf.set(connection, scope);
    }
    return connection;
  };
  client.releaseConnection = (connection) => {
    inUse.delete(connection);
    scopeOf.get(connection)?.held.delete(connection);
    scopeOf.delete(connection);
    return release(connection);
  };
}
