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
    const { rows } = await client.query<{ statements: string; hit: string; read: string; ms: number }>(
      `select sum(calls) statements, sum(shared_blks_hit) hit, sum(shared_blks_read) read, sum(total_exec_time) ms
         from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'`,
    );
    const [{ statements, hit, read, ms }] = rows as [(typeof rows)[number]];
    const top = await client.query<{ calls: string; query: string }>(
      `select calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) query from pg_stat_statements
        where dbid = (select oid from pg_database where datname = current_database()) and query not like '%pg_stat_statements%'
        order by calls desc limit 4`,
    );
    return {
      top: top.rows.map((row) => ({ perRequest: Number(row.calls) / REQUESTS, query: row.query })),
      statements: Number(statements) / REQUESTS,
      buffers: (Number(hit) + Number(read)) / REQUESTS,
      buffersRead: Number(read) / REQUESTS,
      executionMs: Number(ms) / REQUESTS,
    };
  });
}
