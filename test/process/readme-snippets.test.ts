import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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
const ROOT = path.resolve(__dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The ```lang blocks between a heading and the next heading of the same level. */
function blocksOf(heading: string, lang = 'sh'): string[] {
  const start = README.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no section ${heading}`);
  const level = heading.split(' ')[0] as string;
  const next = README.indexOf(`\n${level} `, start + heading.length + 1);
  const section = README.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1] as string);
}

let service: RunningService;
beforeAll(async () => {
  service = await startSourceService();
}, 90_000);
afterAll(() => service.stop());

describe("README's API snippets", () => {
  it('run top to bottom as written, every call answered without an error', async () => {
    const quickStart = blocksOf('## Quick start').find((block) => block.includes('TOKEN=$(')) ?? '';
    const script = [
      'set -euo pipefail',
      quickStart,
      blocksOf('## Authentication')[0] ?? '',
      ...blocksOf('## Endpoints'),
      ...blocksOf('## Payment intents and the browser-side read'),
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

  it('include a typed-client program that runs as saved (a .ts file at the root, run with tsx)', async () => {
    const [program] = blocksOf('## Typed client', 'ts');
    expect(program).toContain('clientCredentials(');
    // Saved outside the tree, so its import of ./src/ is made absolute; and the address rewritten. Nothing else.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cpp-readme-'));
    const file = path.join(dir, 'typed-client.ts');
    writeFileSync(file, (program as string).replaceAll("'./src/", `'${ROOT}/src/`).replaceAll('http://localhost:8080', service.baseUrl));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 60_000 });
      expect(stdout).toContain('results: 0');
      expect(stdout).toContain('paymentMethods: []');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
