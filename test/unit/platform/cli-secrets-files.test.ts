import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { apiClientSchema } from '../../../src/auth/api-clients';
import { verifyClientSecret } from '../../../src/auth/client-secret';

/**
 * The CLIs that make an operator's secrets files, run as docs/authentication.md says:
 * `npm run key:new -- --out FILE` and `npm run client:new -- … --append FILE`.
 * Through npm, as written: npm's own banner must never end up in a file.
 */
const ROOT = path.resolve(__dirname, '../../..');
const run = (args: string[]) => promisify(execFile)('npm', ['run', ...args], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'development' } });

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'cpp-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run key:new -- --out FILE', () => {
  it('writes a private signing JWK alone, readable only by its owner, and never overwrites one', async () => {
    const file = path.join(dir, 'signing-key.json');
    await run(['key:new', '--', '--out', file]);
    const jwk = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String), d: expect.any(String) });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const before = readFileSync(file, 'utf8');
    await expect(run(['key:new', '--', '--out', file])).rejects.toMatchObject({ stderr: expect.stringContaining('never overwritten') });
    expect(readFileSync(file, 'utf8')).toBe(before);
  }, 60_000);

  it('explains itself with --help', async () => {
    const { stdout } = await run(['-s', 'key:new', '--', '--help']);
    expect(stdout).toContain('npm run key:new -- --out FILE');
  }, 60_000);
});

describe('npm run client:new', () => {
  it('prints, as its only output, a JSON array with the entry, whose hash verifies the secret it shows', async () => {
    const { stdout, stderr } = await run(['-s', 'client:new', '--', '--id', 'shop-backend', '--scope', 'spi.customers:read', '--location', 'store-1']);
    const entries = JSON.parse(stdout) as unknown[];
    expect(entries).toHaveLength(1);
    const entry = apiClientSchema.parse(entries[0]);
    expect(entry).toMatchObject({ clientId: 'shop-backend', scopes: ['spi.customers:read'], locations: ['store-1'] });
    const secret = /clientSecret: (\S+)/.exec(stderr)?.[1] ?? '';
    expect(await verifyClientSecret(secret, entry.secretHash)).toBe(true);
  }, 60_000);

  it('appends to a clients file (made 0600 if missing) and refuses a client id it already holds', async () => {
    const file = path.join(dir, 'clients.json');
    await run(['client:new', '--', '--id', 'one', '--scope', 'spi.customers:read', '--append', file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await run(['client:new', '--', '--id', 'two', '--scope', 'spi.customers:write', '--append', file]);
    const clients = (JSON.parse(readFileSync(file, 'utf8')) as unknown[]).map((client) => apiClientSchema.parse(client));
    expect(clients.map((client) => client.clientId)).toEqual(['one', 'two']);

    await expect(run(['client:new', '--', '--id', 'two', '--scope', 'spi.customers:read', '--append', file])).rejects.toMatchObject({
      stderr: expect.stringContaining('already has a client two'),
    });
    expect((JSON.parse(readFileSync(file, 'utf8')) as unknown[]).length).toBe(2);
  }, 60_000);

  it('refuses to append to a file that is not an array of clients', async () => {
    const file = path.join(dir, 'not-clients.json');
    writeFileSync(file, '{"clients": []}');
    await expect(run(['client:new', '--', '--id', 'xyz', '--scope', 'spi.customers:read', '--append', file])).rejects.toMatchObject({
      stderr: expect.stringContaining('does not hold a JSON array'),
    });
  }, 60_000);
});

describe('a bare file name given to the CLIs', () => {
  const folder = path.join(ROOT, 'deploy/secrets');
  const names = [`key-${process.pid}.json`, `clients-${process.pid}.json`, `keyring-${process.pid}.json`];
  afterAll(() => {
    for (const name of names) rmSync(path.join(folder, name), { force: true });
  });

  it('lands in deploy/secrets/ (git-ignored, readable by its owner alone), never in the project root', async () => {
    const [key, clients, keyring] = names as [string, string, string];
    await run(['key:new', '--', '--out', key]);
    await run(['client:new', '--', '--id', 'bare', '--scope', 'spi.customers:read', '--append', clients]);
    await run(['secrets:key:new', '--', '--out', keyring]);
    for (const name of names) {
      expect(existsSync(path.join(ROOT, name))).toBe(false);
      expect(statSync(path.join(folder, name)).mode & 0o777).toBe(0o600);
    }
    expect(statSync(folder).mode & 0o077).toBe(0);
    const { stdout } = await promisify(execFile)('git', ['check-ignore', path.join(folder, key)], { cwd: ROOT });
    expect(stdout.trim()).toBe(path.join(folder, key));
  }, 90_000);
});
