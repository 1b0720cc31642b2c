import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { API_VERSION } from '../../src/docs/openapi-document';
import { ROOT } from '../support/docs-blocks';

/**
 * The typed client as an integrator gets it (clients/typescript/README.md):
 * `npm pack` builds and packs it, its version is the API's, and the packed
 * JavaScript makes a typed call with no TypeScript tooling (issue 54).
 */
const run = promisify(execFile);
let folder: string;
let server: Server;

beforeAll(async () => {
  folder = mkdtempSync(path.join(os.tmpdir(), 'cpp-client-pack-'));
  server = createServer((request, response) => {
    response.setHeader('Content-Type', 'application/json');
    response.end(JSON.stringify({ status: 'UP', path: request.url, location: request.headers['platform-restaurant-external-id'] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(folder, { recursive: true, force: true });
});

it('packs with the API version, its README, built JavaScript and types, and calls from the tarball', async () => {
  const { stdout } = await run('npm', ['pack', './clients/typescript', '--pack-destination', folder, '--json'], { cwd: ROOT, timeout: 120_000 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ version: string; filename: string; files: Array<{ path: string }> }>;
  expect(packed?.version).toBe(API_VERSION);
  expect(packed?.files.map((file) => file.path)).toEqual(
    expect.arrayContaining(['README.md', 'package.json', 'dist/payment-profiles-client.js', 'dist/payment-profiles-client.d.ts', 'src/api-types.ts']),
  );

  // Unpacked as npm would install it; its one dependency, openapi-fetch, from the repository's node_modules.
  const installed = path.join(folder, 'project', 'node_modules', '@customer-payment-profiles', 'client');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['xzf', path.join(folder, packed?.filename ?? ''), '-C', installed, '--strip-components=1']);
  symlinkSync(path.join(ROOT, 'node_modules', 'openapi-fetch'), path.join(folder, 'project', 'node_modules', 'openapi-fetch'));
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { version: string };
  expect(manifest.version).toBe(API_VERSION);

  const program = `
    const { createPaymentProfilesClient, locationHeaders } = require('@customer-payment-profiles/client');
    const client = createPaymentProfilesClient({ baseUrl: process.argv[1] });
    client.GET('/v1/customers/{id}', { params: { header: locationHeaders('store-1'), path: { id: 'c-1' } } })
      .then(({ data }) => console.log(JSON.stringify(data)));`;
  const { port } = server.address() as AddressInfo;
  const called = await run(process.execPath, ['-e', program, `http://127.0.0.1:${port}`], { cwd: path.join(folder, 'project') });
  expect(JSON.parse(called.stdout)).toEqual({ status: 'UP', path: '/v1/customers/c-1', location: 'store-1' });
}, 180_000);
