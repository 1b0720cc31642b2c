import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type Config } from '../config';
import { readConfigFile } from '../config-files';
import { keyringSchema, SecretBox, withNewKey } from './secret-box';

/** Where a development keyring is kept when SECRETS_ENCRYPTION_KEY_FILE is unset (never in production). */
export const DEV_KEYRING_FILE = 'dev-secrets-keyring.json';

function readKeyring(file: string, source: string): SecretBox {
  const text = readConfigFile(source, file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${source} ${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = keyringSchema.safeParse(json);
  if (!parsed.success) {
    throw new ConfigError(
      `${source} must be {"current": id, "keys": {id: 32 bytes in base64}} (make one with \`npm run secrets:key:new -- --out FILE\`): ${parsed.error.issues[0]?.message}`,
    );
  }
  try {
    return new SecretBox(parsed.data, `${source} ${path.resolve(file)}`);
  } catch (error) {
    throw new ConfigError(`${source}: ${(error as Error).message}`);
  }
}

/**
 * The keyring secrets are sealed with: SECRETS_ENCRYPTION_KEY_FILE when set;
 * outside production, otherwise, a development keyring made once and kept
 * under DATA_DIR (as the development signing key is), so that secrets stored
 * survive restarts. Production without one refuses to start.
 */
export function loadSecretBox(config: Config): SecretBox {
  if (config.SECRETS_ENCRYPTION_KEY_FILE !== undefined) return readKeyring(config.SECRETS_ENCRYPTION_KEY_FILE, 'SECRETS_ENCRYPTION_KEY_FILE');
  if (config.NODE_ENV === 'production') {
    throw new ConfigError('NODE_ENV=production needs SECRETS_ENCRYPTION_KEY_FILE (make one with `npm run secrets:key:new -- --out FILE`)');
  }
  const devFile = path.resolve(config.DATA_DIR, DEV_KEYRING_FILE);
  if (!existsSync(devFile)) {
    mkdirSync(path.dirname(devFile), { recursive: true });
    try {
      writeFileSync(devFile, `${JSON.stringify(withNewKey())}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(devFile, 0o600);
    } catch (error) {
      // Another process under the same DATA_DIR made it first: read theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readKeyring(devFile, 'development keyring');
}
