import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/platform/config';

/** Issue 38: the documented sample of the production start-up errors showed 3 problems where 4 were printed. */
describe("docs/authentication.md's sample of the production start-up errors", () => {
  it('is what the service prints with NODE_ENV=production and ALLOW_SANDBOX_PROCESSOR=true alone', () => {
    const readme = readFileSync(path.resolve(__dirname, '../../../docs/authentication.md'), 'utf8');
    const sample = /```\n(Invalid configuration \(\d+ problems?\):\n(?:- .*\n)+)```/.exec(readme)?.[1];
    expect(sample).toBeDefined();
    let printed = '';
    try {
      loadConfig({ NODE_ENV: 'production', ALLOW_SANDBOX_PROCESSOR: 'true' });
    } catch (error) {
      printed = (error as Error).message;
    }
    expect(`${printed}\n`).toBe(sample);
  });
});
