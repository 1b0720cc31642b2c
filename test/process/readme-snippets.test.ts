import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSourceService, type RunningService } from '../support/process/service-process';

/**
 * README's API snippets, run as written against a started service, top to
 * bottom, in one shell: the quick start's login, the two token forms, then
 * every block of "Endpoints" and "Payment intents and the browser-side
 * read", each taking the ids it needs from the answers before it. Only the
 * service's address is rewritten (it listens on a free port here).
 */
const README = readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

/** The ```sh blocks between a heading and the next heading of the same level. */
function shellBlocksOf(heading: string): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section ${heading}`);
  const level = heading.split(' ')[0] as string;
  const next = README.indexOf(`\n${level} `, start + heading.length + 1);
  const section = README.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] as string);
}

let service: RunningService;
beforeAll(async () => {
  service = await startSourceService();
}, 90_000);
afterAll(() => service.stop());

describe("README's API snippets", () => {
  it('run top to bottom as written, every call answered without an error', async () => {
    const quickStart = shellBlocksOf('## Quick start').find((block) => block.includes('TOKEN=$(')) ?? '';
    const script = [
      'set -euo pipefail',
      quickStart,
      shellBlocksOf('## Authentication')[0] ?? '',
      ...shellBlocksOf('## Endpoints'),
      ...shellBlocksOf('## Payment intents and the browser-side read'),
    ]
      .join('\n')
      .replaceAll('http://localhost:8080', service.baseUrl);
    expect(script).toContain('BROWSER_TOKEN=$(');

    const { stdout } = await promisify(execFile)('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '' }, timeout: 60_000 });
    // Every answer printed is a success: no ErrorMessage among them.
    expect(stdout).not.toContain('"messageKey"');
    expect(stdout).toContain('"externalReferenceId":"crm-1"');
    expect(stdout).toContain('"results":1,"customers":[{');
    expect(stdout).toContain('"contextName":"web-checkout"');
    expect(stdout).toContain('204');
    // The browser side read the customer's cards with the session secret, before the cancel.
    expect(stdout).toContain('"results":0,"paymentMethods":[]');
    expect(stdout).toContain('"status":"CANCELED"');
  }, 90_000);
});
