import request from 'supertest';
import { Readiness } from '../../../src/platform/lifecycle/readiness';
import { forgetRetiredKeys, keyringProblem, registerKeyring } from '../../../src/platform/secrets/keys-in-use';
import { SecretBox, withNewKey } from '../../../src/platform/secrets/secret-box';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * A process whose keyring lacks a key the database's secrets are sealed
 * under refuses to start (registerKeyring, run by server.ts before it
 * listens), naming the keyring, the missing ids and who registered them;
 * readiness turns 503 for one already running when another registers a key
 * it lacks. Before, such a replica answered 500 on every read of those secrets.
 */
let t: TestApp;
let box: SecretBox;
const readiness = new Readiness(() => keyringProblem(t.db.knex, box));

beforeAll(async () => {
  t = await startTestApp({ readiness });
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.db.knex('secret_keys_in_use').delete();
  box = new SecretBox(withNewKey(), 'SECRETS_ENCRYPTION_KEY_FILE /run/first.json');
});

describe('registerKeyring', () => {
  it('registers the current key once, without the key itself, and lets the same keyring start again', async () => {
    await registerKeyring(t.db.knex, box);
    await registerKeyring(t.db.knex, box);
    const rows = await t.db.knex('secret_keys_in_use').select('key_id', 'key_check', 'source');
    expect(rows).toEqual([{ key_id: box.currentKeyId, key_check: box.keyCheck(box.currentKeyId), source: expect.stringContaining('/run/first.json') }]);
    expect(JSON.stringify(rows)).not.toContain(box.keyring.keys[box.currentKeyId]);
  });

  it('refuses a keyring that lacks a key in use, naming the setting, the missing id and the keyring that registered it', async () => {
    await registerKeyring(t.db.knex, box);
    const other = new SecretBox(withNewKey(), 'development keyring /tmp/b/dev-secrets-keyring.json');
    await expect(registerKeyring(t.db.knex, other)).rejects.toThrow(
      new RegExp(
        `development keyring /tmp/b/dev-secrets-keyring.json lacks key that .*${box.currentKeyId} \\(missing; registered by SECRETS_ENCRYPTION_KEY_FILE /run/first.json.*set SECRETS_ENCRYPTION_KEY_FILE`,
      ),
    );
    // Refused: its own key was not registered.
    expect(await t.db.knex('secret_keys_in_use').pluck('key_id')).toEqual([box.currentKeyId]);
  });

  it('refuses another key under an id in use', async () => {
    await registerKeyring(t.db.knex, box);
    const otherKey = withNewKey();
    const sameId = new SecretBox(
      { current: box.currentKeyId, keys: { [box.currentKeyId]: otherKey.keys[otherKey.current] as string } },
      'SECRETS_ENCRYPTION_KEY_FILE /run/other.json',
    );
    expect(sameId.keyCheck(box.currentKeyId)).not.toBe(box.keyCheck(box.currentKeyId));
    await expect(registerKeyring(t.db.knex, sameId)).rejects.toThrow(/another key under that id/);
  });

  it('lets a keyring holding every key in use and a new current one start, and adds that one', async () => {
    await registerKeyring(t.db.knex, box);
    const next = new SecretBox(withNewKey(box.keyring), 'SECRETS_ENCRYPTION_KEY_FILE /run/next.json');
    await registerKeyring(t.db.knex, next);
    expect((await t.db.knex('secret_keys_in_use').pluck('key_id')).sort()).toEqual([box.currentKeyId, next.currentKeyId].sort());
    // After secrets:rotate re-sealed everything under the new key, the old one leaves the list.
    expect(await forgetRetiredKeys(t.db.knex, next)).toEqual([box.currentKeyId]);
    expect(await t.db.knex('secret_keys_in_use').pluck('key_id')).toEqual([next.currentKeyId]);
  });

  it('two processes starting at once with different keyrings: one starts, the other refuses', async () => {
    const other = new SecretBox(withNewKey(), 'development keyring /tmp/b/dev-secrets-keyring.json');
    const outcomes = await Promise.allSettled([registerKeyring(t.db.knex, box), registerKeyring(t.db.knex, other)]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(Number((await t.db.knex('secret_keys_in_use').count({ n: '*' }))[0]?.n)).toBe(1);
  });
});

describe('GET /health/ready', () => {
  it('is 503 naming the missing key once another process registered a key this keyring lacks, 200 again when it holds them', async () => {
    await registerKeyring(t.db.knex, box);
    await request(t.app).get('/health/ready').expect(200);
    const next = new SecretBox(withNewKey(box.keyring), 'SECRETS_ENCRYPTION_KEY_FILE /run/next.json');
    await registerKeyring(t.db.knex, next);
    const ready = await request(t.app).get('/health/ready').expect(503);
    expect(ready.headers['retry-after']).toBe('5');
    expect(ready.body.message).toContain(`lacks key that secrets in this database are sealed under: ${next.currentKeyId}`);
    box = next;
    await request(t.app).get('/health/ready').expect(200);
  });
});
