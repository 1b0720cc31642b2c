import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { keyringSchema, withNewKey, type Keyring } from './secret-box';
import { secretsFilePath } from './secrets-folder';

const USAGE = `npm run secrets:key:new -- --out FILE
npm run secrets:key:new -- --add FILE
npm run secrets:key:new -- --make-current KEY_ID FILE

--out FILE      writes a new keyring with one key (mode 0600; an existing file is
                never overwritten), for SECRETS_ENCRYPTION_KEY_FILE; a bare file
                name goes into deploy/secrets/ (git-ignored).
--add FILE      adds a new key to the keyring in FILE, not yet current: every
                replica can then open what it will seal.
--make-current  makes KEY_ID the key new secrets are sealed with.

A rotation: --add, roll the keyring out to every replica; --make-current, roll
it out again; npm run secrets:rotate re-seals the stored secrets; then remove
the old key from the file (docs: secrets at rest).`;

function readKeyring(file: string): Keyring {
  return keyringSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

/** Replaces FILE whole (written beside it, then renamed), readable by its owner only. */
function replaceKeyring(file: string, keyring: Keyring): void {
  const next = `${file}.next`;
  writeFileSync(next, `${JSON.stringify(keyring, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  renameSync(next, file);
}

function main(): void {
  const { values, positionals } = parseArgs({
    options: { out: { type: 'string' }, add: { type: 'string' }, 'make-current': { type: 'string' }, help: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (values.help || (values.out === undefined && values.add === undefined && values['make-current'] === undefined)) {
    console.log(USAGE);
    return;
  }
  try {
    if (values.out !== undefined) {
      const out = secretsFilePath(values.out);
      writeFileSync(out, `${JSON.stringify(withNewKey(), null, 2)}\n`, { mode: 0o600, flag: 'wx' });
      console.error(`Wrote a new secrets keyring to ${out} (mode 0600). Point SECRETS_ENCRYPTION_KEY_FILE at it.`);
    } else if (values.add !== undefined) {
      const keyring = readKeyring(values.add);
      const added = withNewKey(keyring);
      replaceKeyring(values.add, { ...added, current: keyring.current });
      console.error(`Added key ${added.current} to ${values.add}, not yet current. Roll it out, then --make-current ${added.current}.`);
    } else {
      const file = positionals[0];
      const id = values['make-current'] as string;
      if (file === undefined) throw new Error('--make-current KEY_ID FILE: name the keyring file');
      const keyring = readKeyring(file);
      if (keyring.keys[id] === undefined) throw new Error(`${file} holds no key ${id}`);
      replaceKeyring(file, { ...keyring, current: id });
      console.error(`${id} is now the current key of ${file}. Roll it out, then run npm run secrets:rotate.`);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    console.error(
      code === 'EEXIST' ? 'The file exists; a keyring is never overwritten. Choose another file.' : `Cannot write the keyring: ${(error as Error).message}`,
    );
    process.exitCode = 1;
  }
}

main();
