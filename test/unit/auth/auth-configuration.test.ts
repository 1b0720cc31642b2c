import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DEV_CLIENT_ID, DEV_CLIENT_SECRET, loadApiClients } from '../../../src/auth/api-clients';
import { hashClientSecret, verifyClientSecret } from '../../../src/auth/client-secret';
import { SCOPES } from '../../../src/auth/scopes';
import { loadSigningKeys, newSigningJwk } from '../../../src/auth/signing-keys';
import { loadConfig } from '../../../src/platform/config';

function configWith(env: Record<string, string>) {
  return loadConfig({ DATA_DIR: mkdtempSync(path.join(tmpdir(), 'cpp-auth-')), ...env });
}

const CHEAP = { N: 1024, r: 8, p: 1 };

/** Everything production needs, so that a test can leave one out (an empty value is "not set"). */
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_SIGNING_KEY_FILE: '/run/secrets/signing-key.json',
  SECRETS_ENCRYPTION_KEY_FILE: '/run/secrets/secrets-keyring.json',
  AUTH_CLIENTS: '[]',
  DATABASE_URL: 'postgres://service@db.internal:5432/payments',
  // The only processor there is today (docs/checkout.md).
  ALLOW_SANDBOX_PROCESSOR: 'true',
};

describe('client secrets', () => {
  it('verifies the right secret and refuses a wrong one or a malformed hash', async () => {
    const hash = await hashClientSecret('s3cret', CHEAP);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyClientSecret('s3cret', hash)).toBe(true);
    expect(await verifyClientSecret('s3cret ', hash)).toBe(false);
    expect(await verifyClientSecret('s3cret', 'plain-text')).toBe(false);
  });

  it('salts every hash', async () => {
    expect(await hashClientSecret('same', CHEAP)).not.toBe(await hashClientSecret('same', CHEAP));
  });
});

describe('API clients from configuration', () => {
  it('gives the development client, every scope and location, when none are configured outside production', async () => {
    const [client, ...others] = await loadApiClients(configWith({ NODE_ENV: 'development' }));
    expect(others).toEqual([]);
    expect(client).toMatchObject({ clientId: DEV_CLIENT_ID, scopes: [...SCOPES], locations: ['*'] });
    expect(await verifyClientSecret(DEV_CLIENT_SECRET, client?.secretHash ?? '')).toBe(true);
  });

  it('reads clients from AUTH_CLIENTS_FILE, and then has no development client', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cpp-clients-')), 'clients.json');
    const entry = { clientId: 'shop', secretHash: await hashClientSecret('x', CHEAP), scopes: ['spi.customers:read'], locations: ['store-1'] };
    writeFileSync(file, JSON.stringify([entry]));
    expect(await loadApiClients(configWith({ AUTH_CLIENTS_FILE: file }))).toEqual([entry]);
  });

  it('refuses to start in production with no clients', async () => {
    expect(() => configWith({ ...PRODUCTION, AUTH_CLIENTS: '' })).toThrow(/AUTH_CLIENTS_FILE: NODE_ENV=production needs the API clients/);
    // A configuration made some other way is refused by the loader too.
    await expect(loadApiClients({ ...configWith({}), NODE_ENV: 'production' })).rejects.toThrow(/needs API clients/);
    await expect(loadApiClients(configWith({ ...PRODUCTION, AUTH_CLIENTS: '[]' }))).rejects.toThrow(/needs API clients/);
  });

  it('refuses to start in production with the development client', async () => {
    const devClient = { clientId: DEV_CLIENT_ID, secretHash: await hashClientSecret('x', CHEAP), scopes: ['spi.customers:read'], locations: ['*'] };
    const config = configWith({ ...PRODUCTION, AUTH_CLIENTS: JSON.stringify([devClient]) });
    await expect(loadApiClients(config)).rejects.toThrow(/refuses the development client/);
  });

  it.each([
    ['not JSON', '[{'],
    ['an unknown scope', JSON.stringify([{ clientId: 'abc', secretHash: 'scrypt$1$1$1$a$b', scopes: ['admin'], locations: ['*'] }])],
    ['a plain-text secret', JSON.stringify([{ clientId: 'abc', secretHash: 'hunter2', scopes: ['spi.customers:read'], locations: ['*'] }])],
  ])('refuses clients that are %s, naming the variable', async (_case, value) => {
    await expect(loadApiClients(configWith({ AUTH_CLIENTS: value }))).rejects.toThrow(/AUTH_CLIENTS/);
  });
});

describe('signing keys', () => {
  it('keeps a generated development key under DATA_DIR, readable only by its owner, across restarts', async () => {
    const config = configWith({});
    const first = await loadSigningKeys(config);
    const again = await loadSigningKeys(config);
    expect(again.kid).toBe(first.kid);
    const file = path.join(config.DATA_DIR, 'dev-signing-key.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).d).toEqual(expect.any(String));
  });

  it('refuses to start in production without AUTH_SIGNING_KEY_FILE', async () => {
    expect(() => configWith({ ...PRODUCTION, AUTH_SIGNING_KEY_FILE: '' })).toThrow(/AUTH_SIGNING_KEY_FILE: NODE_ENV=production needs/);
    // A configuration made some other way is refused by the loader too.
    await expect(loadSigningKeys({ ...configWith({}), NODE_ENV: 'production' })).rejects.toThrow(/AUTH_SIGNING_KEY_FILE/);
  });

  it('loads the configured key and publishes retired keys after it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cpp-keys-'));
    const current = await newSigningJwk();
    const { d: _retiredPrivate, ...retired } = await newSigningJwk();
    writeFileSync(path.join(dir, 'key.json'), JSON.stringify(current));
    writeFileSync(path.join(dir, 'previous.json'), JSON.stringify({ keys: [retired] }));
    const keys = await loadSigningKeys(
      configWith({ AUTH_SIGNING_KEY_FILE: path.join(dir, 'key.json'), AUTH_PREVIOUS_KEYS_FILE: path.join(dir, 'previous.json') }),
    );
    expect(keys.publicKeys.map((key) => key.kid)).toEqual([current.kid, retired.kid]);
    expect(keys.publicKeys.every((key) => key.d === undefined)).toBe(true);
  });
});

describe('external identity provider settings', () => {
  it('go together: one without the others stops start-up', () => {
    expect(() => loadConfig({ AUTH_JWKS_URL: 'https://idp.example/jwks.json' })).toThrow(/AUTH_JWKS_URL/);
    expect(() => loadConfig({ AUTH_JWKS_URL: 'https://idp.example/jwks.json', AUTH_ISSUER: 'https://idp.example/', AUTH_AUDIENCE: 'api' })).not.toThrow();
  });
});

describe('production settings', () => {
  it('names every missing one in one error, not one per restart', () => {
    let message = '';
    try {
      loadConfig({ NODE_ENV: 'production', PORT: 'eighty' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid configuration \(6 problems\):/);
    for (const name of ['PORT', 'AUTH_SIGNING_KEY_FILE', 'SECRETS_ENCRYPTION_KEY_FILE', 'AUTH_CLIENTS_FILE', 'PAYMENT_PROCESSOR', 'DATABASE_URL']) {
      expect(message).toContain(`\n- ${name}: `);
    }
  });

  it('asks the migrations for the database only: no signing key, keyring, clients or processor (issue 54)', () => {
    const databaseOnly = { NODE_ENV: 'production', DATABASE_URL: 'postgres://migrator@db.internal/payments' };
    expect(loadConfig(databaseOnly, 'database')).toMatchObject(databaseOnly);
    expect(loadConfig({ NODE_ENV: 'production', MIGRATIONS_DATABASE_URL: 'postgres://migrator@db.internal:5432/payments' }, 'migrations')).toMatchObject({
      MIGRATIONS_DATABASE_URL: 'postgres://migrator@db.internal:5432/payments',
    });
    expect(loadConfig(databaseOnly, 'migrations')).toMatchObject(databaseOnly);
    // The login release reads DATABASE_URL only: MIGRATIONS_DATABASE_URL alone would leave it on an embedded database.
    expect(() => loadConfig({ NODE_ENV: 'production', MIGRATIONS_DATABASE_URL: 'postgres://migrator@db.internal:5432/payments' }, 'database')).toThrow(
      /- DATABASE_URL: /,
    );
    // The database itself it still needs, and a bad value is still refused.
    expect(() => loadConfig({ NODE_ENV: 'production' }, 'database')).toThrow(/^Invalid configuration \(1 problem\):\n- DATABASE_URL: /);
    expect(() => loadConfig({ ...databaseOnly, DB_POOL_MAX: 'many' }, 'database')).toThrow(/DB_POOL_MAX/);
    // The service itself still asks for everything.
    expect(() => loadConfig(databaseOnly)).toThrow(/AUTH_SIGNING_KEY_FILE/);
  });

  it('refuses the embedded database unless ALLOW_EMBEDDED_DATABASE=true', () => {
    expect(() => loadConfig({ ...PRODUCTION, DATABASE_URL: '' })).toThrow(/DATABASE_URL: NODE_ENV=production needs a PostgreSQL server/);
    expect(loadConfig({ ...PRODUCTION, DATABASE_URL: '', ALLOW_EMBEDDED_DATABASE: 'true' })).toMatchObject({ ALLOW_EMBEDDED_DATABASE: true });
    expect(loadConfig({ ...PRODUCTION })).toMatchObject({ NODE_ENV: 'production' });
  });

  it('refuses the sandbox processor, which moves no money, unless ALLOW_SANDBOX_PROCESSOR=true', () => {
    expect(() => loadConfig({ ...PRODUCTION, ALLOW_SANDBOX_PROCESSOR: '' })).toThrow(
      /PAYMENT_PROCESSOR: NODE_ENV=production would take payments with the sandbox/,
    );
    expect(() => loadConfig({ ...PRODUCTION, ALLOW_SANDBOX_PROCESSOR: 'false' })).toThrow(/ALLOW_SANDBOX_PROCESSOR=true starts with it anyway/);
    expect(loadConfig({ ...PRODUCTION })).toMatchObject({ PAYMENT_PROCESSOR: 'sandbox', ALLOW_SANDBOX_PROCESSOR: true });
    // Outside production the sandbox is simply the default.
    expect(loadConfig({})).toMatchObject({ PAYMENT_PROCESSOR: 'sandbox', ALLOW_SANDBOX_PROCESSOR: false, SANDBOX_LATENCY_MS: 0, CAPTURE_WINDOW_SECONDS: 300 });
    expect(() => loadConfig({ PAYMENT_PROCESSOR: 'stripe' })).toThrow(/PAYMENT_PROCESSOR/);
  });
});
