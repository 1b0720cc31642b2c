import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { withNewKey } from '../../../src/platform/secrets/secret-box';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';
import { devClientToken, startSourceService, type RunningService } from '../../support/process/service-process';

/**
 * What stops a start, or answers while the database refuses, with several
 * real processes on one server database (issue: under attack, fourth round):
 * - two development processes, each with its own DATA_DIR and so its own
 *   development keyring: the second refuses to start and names the fix
 *   (before, both ran and answered 500 on reads of what the other sealed);
 *   a replica running when another registered a key it lacks is not ready;
 * - a login the database refuses, with MIGRATE_ON_START=false: the start
 *   stops naming DATABASE_URL (before, it listened and answered 500), and
 *   so does `npm run migrate`; refused while running: 503 with Retry-After;
 * - a first host that accepts and never answers: the second host is used.
 */
const ROOT = path.resolve(__dirname, '../../..');
let database: FreshDatabase;
let folder: string;
/** The keyring of every process on `database`. */
let keyringFile: string;
const started: RunningService[] = [];

beforeAll(async () => {
  database = await freshPostgresDatabase();
  folder = mkdtempSync(path.join(os.tmpdir(), 'cpp-refusals-'));
  keyringFile = path.join(folder, 'keyring.json');
  writeFileSync(keyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  await Promise.all(started.map((service) => service.stop()));
  await database?.drop();
  rmSync(folder, { recursive: true, force: true });
});

async function start(env: Record<string, string>): Promise<RunningService> {
  const service = await startSourceService(env);
  started.push(service);
  return service;
}

/** The error a start that must fail ends with: its log and stderr, joined. */
async function refusedStart(env: Record<string, string>): Promise<string> {
  const failure = await startSourceService(env).then(
    (service) => {
      started.push(service);
      throw new Error('the service started');
    },
    (error: Error) => error.message,
  );
  return failure;
}

async function onServer<Row>(url: string, sql: string): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as Row[];
  } finally {
    await client.end();
  }
}

function withUser(url: string, user: string): string {
  const parsed = new URL(url);
  parsed.username = user;
  parsed.password = 'not-the-password';
  return parsed.toString();
}

describe('the secrets keyring across processes', () => {
  it('a second development process with a keyring of its own refuses to start and names the first one’s keyring', async () => {
    const shared = await freshPostgresDatabase();
    try {
      await secondDevelopmentProcessRefuses(shared.url);
    } finally {
      await Promise.all(started.splice(0).map((service) => service.stop()));
      await shared.drop();
    }
  }, 120_000);

  async function secondDevelopmentProcessRefuses(url: string): Promise<void> {
    const firstDataDir = path.join(folder, 'first');
    await start({ DATABASE_URL: url, DATA_DIR: firstDataDir });
    const message = await refusedStart({ DATABASE_URL: url, DATA_DIR: path.join(folder, 'second') });
    expect(message).toMatch(/The service exited with 1/);
    expect(message).toContain(`development keyring ${path.join(folder, 'second', 'dev-secrets-keyring.json')} lacks key`);
    expect(message).toContain(`registered by development keyring ${path.join(firstDataDir, 'dev-secrets-keyring.json')}`);
    expect(message).toContain('set SECRETS_ENCRYPTION_KEY_FILE');
    // The fix it names works: the second process on the first one's keyring starts and reads what the first sealed.
    const second = await start({
      DATABASE_URL: url,
      DATA_DIR: path.join(folder, 'second'),
      SECRETS_ENCRYPTION_KEY_FILE: path.join(firstDataDir, 'dev-secrets-keyring.json'),
    });
    expect((await fetch(`${second.baseUrl}/health/ready`)).status).toBe(200);
  }

  it('a running replica whose keyring lacks a key another registered since turns readiness 503 naming it', async () => {
    const other = await freshPostgresDatabase();
    try {
      const keyring = withNewKey();
      const next = withNewKey(keyring);
      writeFileSync(path.join(folder, 'old.json'), JSON.stringify(keyring), { mode: 0o600 });
      writeFileSync(path.join(folder, 'next.json'), JSON.stringify(next), { mode: 0o600 });
      const old = await startSourceService({ DATABASE_URL: other.url, SECRETS_ENCRYPTION_KEY_FILE: path.join(folder, 'old.json') });
      const newer = await startSourceService({ DATABASE_URL: other.url, SECRETS_ENCRYPTION_KEY_FILE: path.join(folder, 'next.json') });
      try {
        expect((await fetch(`${newer.baseUrl}/health/ready`)).status).toBe(200);
        const ready = await fetch(`${old.baseUrl}/health/ready`);
        expect(ready.status).toBe(503);
        expect(((await ready.json()) as { message: string }).message).toContain(`${next.current} (missing; registered by SECRETS_ENCRYPTION_KEY_FILE`);
      } finally {
        await Promise.all([old.stop(), newer.stop()]);
      }
    } finally {
      await other.drop();
    }
  }, 120_000);
});

describe('a database that refuses the login', () => {
  it('stops the start naming DATABASE_URL with MIGRATE_ON_START=false, where it listened and answered 500', async () => {
    const url = withUser(database.url, `nobody_${randomBytes(4).toString('hex')}`);
    const message = await refusedStart({ DATABASE_URL: url, MIGRATE_ON_START: 'false' });
    expect(message).toMatch(/The service exited with 1/);
    expect(message).toMatch(/DATABASE_URL postgres:\/\/nobody_[0-9a-f]+:\*\*\*\*@.*: the server refused the login/);
    expect(message).not.toContain('not-the-password');
  }, 60_000);

  it('`npm run migrate` says the same, not the bare driver error', async () => {
    const url = withUser(database.url, `nobody_${randomBytes(4).toString('hex')}`);
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/db/migrate.cli.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATABASE_URL: url, DATA_DIR: folder },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/DATABASE_URL postgres:\/\/nobody_[0-9a-f]+:\*\*\*\*@.*: the server refused the login/);
  }, 60_000);

  it('answers 503 with Retry-After, never 500, once the server refuses new logins while running', async () => {
    const role = `cpp_login_${randomBytes(4).toString('hex')}`;
    await onServer(database.url, `create role ${role} login superuser`);
    try {
      const url = new URL(database.url);
      url.username = role;
      const service = await start({ DATABASE_URL: url.toString(), SECRETS_ENCRYPTION_KEY_FILE: keyringFile });
      const token = await devClientToken(service.baseUrl);
      await onServer(database.url, `alter role ${role} nologin`);
      // The pool's connections end (as after a restart): each new one is refused.
      await onServer(database.url, `select pg_terminate_backend(pid) from pg_stat_activity where usename = '${role}'`);
      const answers = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const response = await fetch(`${service.baseUrl}/v1/customers`, {
          headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'refused-login' },
        });
        answers.push({ status: response.status, retryAfter: response.headers.get('retry-after') !== null });
      }
      expect(answers).toEqual(Array.from({ length: 3 }, () => ({ status: 503, retryAfter: true })));
      expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(503);
      // Mended: served again without a restart.
      await onServer(database.url, `alter role ${role} login`);
      let status = 0;
      for (let attempt = 0; attempt < 50 && status !== 200; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await fetch(`${service.baseUrl}/health/ready`)).status;
      }
      expect(status).toBe(200);
    } finally {
      await Promise.all(started.splice(0).map((service) => service.stop()));
      // It migrated the database, so it owns the tables: hand them back before the role goes.
      await onServer(database.url, `reassign owned by ${role} to postgres`);
      await onServer(database.url, `drop role if exists ${role}`);
    }
  }, 60_000);
});

describe('a first host that accepts and never answers', () => {
  let silent: Server;
  let silentPort: number;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentPort = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it.each([
    ['without connect_timeout (an equal share of the acquire timeout each)', ''],
    ['with connect_timeout=2 (two seconds each, as libpq)', '&connect_timeout=2'],
  ])(
    'starts on the second host %s',
    async (_how, extra) => {
      const server = new URL(database.url);
      const url = `postgres://${server.username}@127.0.0.1:${silentPort},${server.host}${server.pathname}?target_session_attrs=read-write${extra}`;
      const service = await start({ DATABASE_URL: url, SECRETS_ENCRYPTION_KEY_FILE: keyringFile });
      expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
      const token = await devClientToken(service.baseUrl);
      const created = await fetch(`${service.baseUrl}/v1/customers`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': 'silent-first-host', 'Content-Type': 'application/json' },
        body: JSON.stringify({ description: 'first-host@example.com' }),
      });
      expect(created.status).toBe(200);
    },
    60_000,
  );
});
