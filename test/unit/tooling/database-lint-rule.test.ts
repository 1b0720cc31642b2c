import { spawn } from 'node:child_process';
import path from 'node:path';

/**
 * One way to the database (eslint.config.mjs): Knex's `raw`, its `client` and
 * its `isTransaction` are src/platform/db's alone. The rule holds on the tree
 * (`npm run lint`) and fails on a file that breaks it: a check that could not
 * fail would prove nothing.
 */
const ROOT = path.resolve(__dirname, '../../..');
const ESLINT = path.join(ROOT, 'node_modules/.bin/eslint');

/** The rule's messages for `text` linted as if it were the file at `filePath` (ESLint's own CLI, reading standard input). */
function problems(filePath: string, text: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(ESLINT, ['--stdin', '--stdin-filename', filePath, '--format', 'json'], { cwd: ROOT });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      const [result] = JSON.parse(output) as Array<{ messages: Array<{ ruleId: string | null; message: string }> }>;
      resolve((result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-syntax').map((message) => message.message));
    });
    child.stdin.end(text);
  });
}

const VIOLATIONS = `import type { Knex } from 'knex';
export async function sneaky(db: Knex): Promise<unknown> {
  if (db.isTransaction) return undefined;
  void db.client;
  return db.raw('select 1');
}
`;

it('refuses raw SQL, the transaction flag and Knex client in a feature', async () => {
  const found = await problems('src/customers/sneaky.repository.ts', VIOLATIONS);
  expect(found).toHaveLength(3);
  expect(found.join('\n')).toMatch(/No raw SQL outside src\/platform\/db/);
  expect(found.join('\n')).toMatch(/Whether a db is a transaction is for src\/platform\/db/);
  expect(found.join('\n')).toMatch(/Knex's client is internal/);
}, 60_000);

it('allows them under src/platform/db', async () => {
  expect(await problems('src/platform/db/allowed.ts', VIOLATIONS)).toEqual([]);
}, 60_000);
