import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/platform/config';
import { SecretBox, withNewKey } from '../../../src/platform/secrets/secret-box';
import { DEV_KEYRING_FILE, loadSecretBox } from '../../../src/platform/secrets/secrets-keyring';

const ROOT = path.resolve(__dirname, '../../..');
const folder = () => mkdtempSync(path.join(tmpdir(), 'cpp-keyring-'));

/** `sealed` with one bit of its tag flipped: always altered (overwriting the last characters was not, when the tag's last byte was already 0). */
function withLastByteFlipped(sealed: string): string {
  const at = sealed.lastIndexOf(':') + 1;
  const bytes = Buffer.from(sealed.slice(at), 'base64url');
  bytes.writeUInt8((bytes.at(-1) ?? 0) ^ 1, bytes.length - 1);
  return `${sealed.slice(0, at)}${bytes.toString('base64url')}`;
}

describe('SecretBox', () => {
  it('opens what it sealed for the same record only, and says which key sealed it', () => {
    const box = new SecretBox(withNewKey());
    const sealed = box.seal('whsec_abc', 'webhook_endpoints:loc:1');
    expect(sealed).toMatch(new RegExp(`^enc1:${box.currentKeyId}:`));
    expect(sealed).not.toContain('whsec_abc');
    expect(box.open(sealed, 'webhook_endpoints:loc:1')).toBe('whsec_abc');
    expect(() => box.open(sealed, 'webhook_endpoints:loc:2')).toThrow();
    expect(() => box.open(withLastByteFlipped(sealed), 'webhook_endpoints:loc:1')).toThrow();
    // Stored before encryption existed: read as it is.
    expect(box.open('PI_x_SECRET_y', 'payment_intents:loc:1')).toBe('PI_x_SECRET_y');
    expect(box.isCurrent(sealed)).toBe(true);
    expect(box.isCurrent('PI_x_SECRET_y')).toBe(false);
  });

  it('opens a value sealed under an older key of its keyring, and names a key it does not hold', () => {
    const old = withNewKey();
    const sealed = new SecretBox(old).seal('secret', 'c');
    expect(new SecretBox(withNewKey(old)).open(sealed, 'c')).toBe('secret');
    expect(() => new SecretBox(withNewKey()).open(sealed, 'c')).toThrow(new RegExp(`sealed under key ${old.current}`));
  });
});

describe('loadSecretBox', () => {
  it('refuses production without SECRETS_ENCRYPTION_KEY_FILE, naming how to make one', () => {
    expect(() => loadSecretBox({ ...loadConfig({ DATA_DIR: folder() }), NODE_ENV: 'production' })).toThrow(/SECRETS_ENCRYPTION_KEY_FILE.*secrets:key:new/);
  });

  it('outside production, makes a development keyring under DATA_DIR once (mode 0600) and reads the same one again', () => {
    const config = loadConfig({ DATA_DIR: folder() });
    const first = loadSecretBox(config);
    const file = path.join(config.DATA_DIR, DEV_KEYRING_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretBox(config).open(first.seal('s', 'c'), 'c')).toBe('s');
  });

  it('refuses a keyring whose current key it does not hold, or whose key is not 32 bytes', () => {
    const dir = folder();
    const file = path.join(dir, 'keyring.json');
    writeFileSync(file, JSON.stringify({ current: 'b', keys: { a: Buffer.alloc(32).toString('base64') } }));
    expect(() => loadSecretBox(loadConfig({ SECRETS_ENCRYPTION_KEY_FILE: file, DATA_DIR: dir }))).toThrow(/current key b/);
    writeFileSync(file, JSON.stringify({ current: 'a', keys: { a: Buffer.alloc(16).toString('base64') } }));
    expect(() => loadSecretBox(loadConfig({ SECRETS_ENCRYPTION_KEY_FILE: file, DATA_DIR: dir }))).toThrow(/32 bytes/);
  });

  it('names the uid that must read an unreadable keyring file', () => {
    if (process.getuid?.() === 0) {
      // Root reads any file: the message is shown by a file that cannot be found instead.
      expect(() => loadSecretBox(loadConfig({ SECRETS_ENCRYPTION_KEY_FILE: '/nonexistent/keyring.json' }))).toThrow(
        /SECRETS_ENCRYPTION_KEY_FILE \/nonexistent\/keyring.json does not exist/,
      );
      return;
    }
    const file = path.join(folder(), 'keyring.json');
    writeFileSync(file, JSON.stringify(withNewKey()));
    chmodSync(file, 0o000);
    expect(() => loadSecretBox(loadConfig({ SECRETS_ENCRYPTION_KEY_FILE: file }))).toThrow(/runs as uid \d+, which may not read it.*chown \d+/);
  });
});

describe('npm run secrets:key:new', () => {
  const run = (args: string[]) => promisify(execFile)('npx', ['tsx', 'src/platform/secrets/secrets-key-new.cli.ts', ...args], { cwd: ROOT });

  it('--out writes a new keyring (0600, never over a file); --add adds a key not yet current; --make-current switches to it', async () => {
    const file = path.join(folder(), 'keyring.json');
    await run(['--out', file]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const made = JSON.parse(readFileSync(file, 'utf8')) as { current: string; keys: Record<string, string> };
    expect(Object.keys(made.keys)).toEqual([made.current]);
    await expect(run(['--out', file])).rejects.toMatchObject({ stderr: expect.stringMatching(/never overwritten/) });

    await run(['--add', file]);
    const added = JSON.parse(readFileSync(file, 'utf8')) as { current: string; keys: Record<string, string> };
    expect(added.current).toBe(made.current);
    const [newId] = Object.keys(added.keys).filter((id) => id !== made.current);
    expect(newId).toBeDefined();

    await run(['--make-current', newId as string, file]);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ ...added, current: newId });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  }, 60_000);
});
