import { withClient } from './bench-database';
import type { LoadRequest } from './load';

/** What one request of a read costs the database, from pg_stat_statements: the same at both sizes means the slowdown is the pages' cost, not more work. */
export interface StatementCost {
  statements: number;
  /** Shared buffers touched (hit or read into shared_buffers from the OS). */
  buffers: number;
  /** Of those, the ones not in shared_buffers. */
  buffersRead: number;
  executionMs: number;
  /** The statements run most often, with how many a request: what the request is made of. */
  top: Array<{ perRequest: number; query: string }>;
}

const REQUESTS = 500;

/**
 * Sends REQUESTS of `next` one at a time to `serverUrl` and answers the
 * statements, buffers and execution time pg_stat_statements counted on the
 * bench database per request. The service's background work (the
 * dispatcher's claim once a second) lands in the same counters: a few
 * statements over the whole count.
 */
export async function statementCostPerRequest(databaseUrl: string, serverUrl: string, next: () => LoadRequest): Promise<StatementCost> {
  return withClient(databaseUrl, async (client) => {
    await client.query('create extension if not exists pg_stat_statements');
    await client.query('select pg_stat_statements_reset()');
    for (let sent = 0; sent < REQUESTS; sent += 1) {
      const request = next();
      const answer = await fetch(`${serverUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body ?? null });
      await answer.arrayBuffer();
      if (!answer.ok) throw new Error(`${request.method} ${request.path} answered ${answer.status}`);
    }
    // One read of the counters: the totals and the most frequent statements come from the same rows.
    const { rows } = await client.query<{ calls: string; hit: string; read: string; ms: number; query: string }>(
      `select calls, shared_blks_hit hit, shared_blks_read read, total_exec_time ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) query
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
        order by calls desc`,
    );
    const sum = (pick: (row: (typeof rows)[number]) => number | string) => rows.reduce((total, row) => total + Number(pick(row)), 0);
    const [statements, hit, read, ms] = [sum((row) => row.calls), sum((row) => row.hit), sum((row) => row.read), sum((row) => row.ms)];
    return {
      top: rows.slice(0, 4).map((row) => ({ perRequest: Number(row.calls) / REQUESTS, query: row.query })),
      statements: statements / REQUESTS,
      buffers: (hit + read) / REQUESTS,
      buffersRead: read / REQUESTS,
      executionMs: ms / REQUESTS,
    };
  });
}
