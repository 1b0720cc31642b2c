import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { blocksOf } from '../../support/docs-blocks';
import { freePort } from '../../support/process/free-port';
import { freshPostgresDatabase, type FreshDatabase } from '../../support/process/fresh-postgres-database';

/**
 * docs/deployment.md's first production start, without containers, run as
 * written on an empty database of the server (issue 54): keys and a client
 * made by the tools, `npm run migrate:prod` with only NODE_ENV and
 * DATABASE_URL (it asked for every production setting before), the start,
 * and readiness. Only the database's address, the key folder and the port
 * are changed, and the build step is left out: the suite runs on the
 * checkout's build, and `npm ci` would pull the dependencies from under the
 * other tests.
 */
const ROOT = path.resolve(__dirname, '../../..');
let database: FreshDatabase;
let keys: string;
let recipe: ChildProcess | undefined;

beforeAll(async () => {
  database = await freshPostgresDatabase();
  keys = mkdtempSync(path.join(os.tmpdir(), 'cpp-recipe-'));
}, 60_000);

afterAll(async () => {
  // The recipe's shell is a process group's leader: the started service is in it.
  if (recipe?.pid !== undefined) {
    try {
      process.kill(-recipe.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await database?.drop();
  rmSync(keys, { recursive: true, force: true });
}, 60_000);

it('builds keys, migrates with only the database settings, starts, and answers ready', async () => {
  const [block] = blocksOf('docs/deployment.md', '## A first production start, without containers');
  expect(block).toContain('npm ci && npm run build');
  const port = await freePort();
  const script = [
    'set -euo pipefail',
    (block as string)
      .replace('npm ci && npm run build', 'test -f dist/src/server.js')
      .replace('KEYS=/etc/customer-payment-profiles', `KEYS=${keys}/etc`)
      .replace('DATABASE_URL=postgres://payments@127.0.0.1:5432/payments', `DATABASE_URL=${database.url}`)
      .replaceAll('8080', String(port)),
  ].join('\n');
  expect(script).toContain(database.url);

  const output: string[] = [];
  recipe = spawn('bash', ['-c', script], { cwd: ROOT, detached: true, env: { PATH: process.env.PATH ?? '', HOME: os.homedir() } });
  recipe.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  recipe.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  const code = await new Promise<number | null>((resolve) => recipe?.on('exit', resolve));

  const printed = output.join('');
  expect({ code, printed }).toEqual({ code: 0, printed: expect.stringContaining('"status":"UP","database":"UP"') });
  expect(printed).toMatch(/applied \d+/);
  // The key tools' files are the service user's alone, and the client it made can log in.
  const clients = JSON.parse(readFileSync(path.join(keys, 'etc', 'clients.json'), 'utf8')) as Array<{ clientId: string }>;
  expect(clients.map((client) => client.clientId)).toEqual(['checkout-backend']);
  expect(statSync(path.join(keys, 'etc')).mode & 0o777).toBe(0o700);
  const secret = /clientSecret:\s*(\S+)/.exec(printed)?.[1];
  expect(secret).toBeDefined();
  const login = await fetch(`http://127.0.0.1:${port}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ clientId: 'checkout-backend', clientSecret: secret }),
  });
  expect(login.status).toBe(200);
}, 180_000);
