import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * docker-compose.yml names only what exists: each host path it mounts is in
 * the checkout, or is made by the commands its header documents; and those
 * commands, run as written in a scratch folder, make exactly those files.
 */
const ROOT = path.resolve(__dirname, '../../..');
const COMPOSE = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const header = COMPOSE.split('\n')
  .filter((line) => line.startsWith('#   '))
  .map((line) => line.slice(4));
const mounted = [...COMPOSE.matchAll(/^\s*- \.\/([^:]+):/gm)].map((match) => match[1] as string);

it('mounts only paths that are in the checkout or that its documented commands make', async () => {
  expect(mounted).toEqual(expect.arrayContaining(['deploy/secrets', 'deploy/nginx.conf']));
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'cpp-compose-'));
  try {
    // The header's commands, but `docker compose up`, run against this checkout's scripts with the scratch folder as deploy/'s parent.
    for (const command of header.filter((line) => !line.startsWith('docker compose'))) {
      const rewritten = command.replaceAll('deploy/', `${scratch}/deploy/`);
      await promisify(execFile)('bash', ['-c', rewritten], { cwd: ROOT, timeout: 60_000 });
    }
    for (const mount of mounted) {
      const made = path.join(scratch, mount);
      const inCheckout = path.join(ROOT, mount);
      expect({ mount, exists: existsSync(made) || (existsSync(inCheckout) && !mount.startsWith('deploy/secrets')) }).toEqual({ mount, exists: true });
    }
    expect(statSync(path.join(scratch, 'deploy/secrets/signing-key.json')).isFile()).toBe(true);
    expect(JSON.parse(readFileSync(path.join(scratch, 'deploy/secrets/clients.json'), 'utf8'))).toEqual([
      expect.objectContaining({ clientId: 'checkout-backend', scopes: ['simplified-payments-integration.server:write'] }),
    ]);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}, 90_000);
