import { readFileSync, statSync } from 'node:fs';
import { startOwnCluster, type OwnCluster } from '../test/support/process/own-postgres-cluster';
import { reserveHugePages } from './huge-pages';

/**
 * A PostgreSQL server sized for a --growth run's data (`--shared-buffers`):
 * a cluster of the run's own in a temporary folder, durable as the shared
 * server is (fsync on), with the memory a year's tables need, which the
 * shared server's defaults (128 MB of shared_buffers) do not have and this
 * project must not change. It also logs what issue 42 asks to be counted:
 * every lock a statement waited on for longer than LOCK_WAIT_LIMIT_MS
 * (log_lock_waits fires after deadlock_timeout), each checkpoint and each
 * autovacuum run; and pg_stat_statements counts what a request costs the
 * server. With `hugePages`, shared memory is mapped in 2 MB pages
 * (huge-pages.ts), given back when the server closes.
 */
/** Issue 42's bound on a lock a write waits on (the purge's batches must stay under it). */
export const LOCK_WAIT_LIMIT_MS = 100;

export interface SizedServer {
  /** The settings it runs with beyond initdb's, for the report. */
  settings: Record<string, string>;
  /** The connection string of its maintenance database (the bench creates its own beside it). */
  url: string;
  /** A mark in the server's log, and what the log says after it. */
  logMark(): number;
  logSince(mark: number): ServerLogCounts;
  close(): Promise<void>;
}

export interface ServerLogCounts {
  /** Statements that waited longer than LOCK_WAIT_LIMIT_MS for a lock. */
  lockWaits: number;
  checkpoints: number;
  autovacuums: number;
}

export async function startSizedServer(sharedBuffers: string, options: { hugePages: boolean }): Promise<SizedServer> {
  const settings: Record<string, string> = {
    shared_buffers: sharedBuffers,
    // The planner's guess at the OS cache beside shared_buffers; the machine's 24 GB hold both.
    effective_cache_size: '16GB',
    // The seed writes tens of GB of WAL: at the default 1 GB a checkpoint would start every few seconds of it.
    max_wal_size: '16GB',
    max_connections: '100',
    shared_preload_libraries: 'pg_stat_statements',
    log_lock_waits: 'on',
    deadlock_timeout: `${LOCK_WAIT_LIMIT_MS}ms`,
    log_checkpoints: 'on',
    log_autovacuum_min_duration: '0',
  };
  const hugePages = options.hugePages ? reserveHugePages(sharedBuffers) : undefined;
  if (hugePages !== undefined) settings.huge_pages = 'on';
  const cluster: OwnCluster = await startOwnCluster(settings).catch((error: unknown) => {
    hugePages?.release();
    throw error;
  });
  return {
    settings,
    url: cluster.url('postgres'),
    logMark: () => statSync(cluster.logFile).size,
    logSince(mark) {
      const text = readFileSync(cluster.logFile).subarray(mark).toString('utf8');
      const count = (pattern: RegExp) => text.match(pattern)?.length ?? 0;
      return {
        lockWaits: count(/still waiting for \w+Lock/g),
        checkpoints: count(/checkpoint starting/g),
        autovacuums: count(/automatic (vacuum|analyze) of table/g),
      };
    },
    async close() {
      await cluster.close();
      hugePages?.release();
    },
  };
}
