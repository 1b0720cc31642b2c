import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary folder, on a
 * free port), which the test may stop, restart and break: never the shared
 * server. Debian's PostgreSQL 15 binaries; run as the postgres user when the
 * tests run as root (PostgreSQL refuses to run as root).
 */
const BIN = '/usr/lib/postgresql/15/bin';

export interface OwnCluster {
  port: number;
  /** A connection string to `database` on this cluster. */
  url(database?: string): string;
  /** Stops the server (fast: sessions are cut, as in a crash of the clients' view) and starts it again. */
  restart(options?: { downMs?: number }): Promise<void>;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function run(command: string, args: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(BIN, command), ...args]] : [path.join(BIN, command), args];
  await promisify(execFile)(file, argv as string[], { timeout: 60_000 });
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'cpp-cluster-'));
  chmodSync(root, 0o755);
  const dataDir = path.join(root, 'data');
  if (process.getuid?.() === 0) {
    const { uid, gid } = await postgresUser();
    chownSync(root, uid, gid);
  }
  await run('initdb', ['-D', dataDir, '--auth=trust', '--username=postgres', '--no-sync', '--encoding=UTF8']);
  const port = await freePort();
  const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  const start = () => run('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(root, 'server.log'), '-w', 'start']);
  const stop = () => run('pg_ctl', ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
  await start();
  return {
    port,
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
