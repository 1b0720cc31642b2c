import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { secretsFilePath } from '../platform/secrets/secrets-folder';
import { newSigningJwk } from './signing-keys';

const USAGE = `npm run key:new -- --out FILE

Writes a new ES256 private signing key, as a JWK, to FILE (created with mode
0600; an existing file is never overwritten), for AUTH_SIGNING_KEY_FILE. A
bare file name goes into deploy/secrets/ (git-ignored). To
rotate, publish the old key's public part in AUTH_PREVIOUS_KEYS_FILE until
the tokens it signed have expired (docs/runbook.md).

Without --out the key is printed; redirecting npm's output would also catch
npm's own banner, so use --out (or \`npm run -s key:new > FILE\`).`;

/** `npm run key:new -- --out FILE`: a new private signing key, written where only its owner can read it. */
async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: 'string' }, help: { type: 'boolean' } } });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const key = `${JSON.stringify(await newSigningJwk())}\n`;
  if (values.out === undefined) {
    process.stdout.write(key);
    return;
  }
  const out = secretsFilePath(values.out);
  try {
    writeFileSync(out, key, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    console.error(
      code === 'EEXIST' ? `${out} exists; a signing key is never overwritten. Choose another file.` : `Cannot write ${out}: ${code ?? String(error)}`,
    );
    process.exitCode = 1;
    return;
  }
  console.error(`Wrote a new signing key to ${out} (mode 0600). Point AUTH_SIGNING_KEY_FILE at it.`);
}

void main();
