import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary folder, on a
 * free port), which the test may stop, restart and break: never the shared
 * server. Debian's PostgreSQL 15 binaries; run as the postgres user when the
 * tests run as root (PostgreSQL refuses to run as root).
 */
const BIN = '/usr/lib/postgresql/15/bin';

export interface OwnCluster {
  port: number;
  /** The server's log (log_lock_waits, checkpoints and autovacuum go here when the settings ask for them). */
  logFile: string;
  /** A connection string to `database` on this cluster. */
  url(database?: string): string;
  /** Stops the server (fast: sessions are cut, as in a crash of the clients' view) and starts it again. */
  restart(options?: { downMs?: number }): Promise<void>;
  close(): Promise<void>;
}

async function run(command: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, command), ...args]] : [path.join(BIN, command), args];
  await promisify(execFile)(file, argv as string[], { timeout: 60_000 });
}

/**
 * The tests' clusters run without fsync (they test behaviour, not durability
 * or speed); a caller that measures passes `settings` of its own, which
 * replace these.
 */
const TEST_SETTINGS: Record<string, string> = { fsync: 'off', max_connections: '50' };

export async function startOwnCluster(settings: Record<string, string> = TEST_SETTINGS): Promise<OwnCluster> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cpp-cluster-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresUser();
    chownSync(root, uid, gid);
  }
  await run('initdb', ['-D', dataDir, '--auth=trust', '--username=postgres', '--no-sync', '--encoding=UTF8']);
  const port = await freePort();
  const options = [`-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
  const logFile = path.join(root, 'server.log');
  const start = () => run('pg_ctl', ['-D', dataDir, '-o', options, '-l', logFile, '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    port,
    logFile,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async restart({ downMs = 0 } = {}) {
      await stop();
      if (downMs > 0) await new Promise((resolve) => setTimeout(resolve, downMs));
      await start();
    },
    async close() {
      await stop().catch(() => undefined);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await promisify(execFile)('id', ['postgres']);
  const uid = Number(/uid=(\d+)/.exec(stdout)?.[1]);
  const gid = Number(/gid=(\d+)/.exec(stdout)?.[1]);
  return { uid, gid };
}
