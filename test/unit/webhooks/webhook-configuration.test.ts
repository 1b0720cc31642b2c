import { loadConfig } from '../../../src/platform/config';

/** The webhook settings: private targets allowed by default outside production only, and the retry schedule read as seconds. */
const PRODUCTION = {
  NODE_ENV: 'production',
  AUTH_SIGNING_KEY_FILE: '/run/secrets/signing-key.json',
  SECRETS_ENCRYPTION_KEY_FILE: '/run/secrets/secrets-keyring.json',
  AUTH_CLIENTS: '[]',
  DATABASE_URL: 'postgres://service@db.internal:5432/payments',
  // The only processor there is today (docs/checkout.md).
  ALLOW_SANDBOX_PROCESSOR: 'true',
};

describe('webhook configuration', () => {
  it('allows private and http targets by default outside production, refuses them by default in production, and follows an explicit choice', () => {
    expect(loadConfig({}).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig({ NODE_ENV: 'test' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig(PRODUCTION).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(loadConfig({ ...PRODUCTION, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }).WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
  });

  it("uses Standard Webhooks' schedule by default, reads another as seconds, and refuses one that is not", () => {
    expect(loadConfig({}).WEBHOOK_RETRY_SCHEDULE).toEqual([5, 300, 1800, 7200, 18000, 36000, 36000]);
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1, 2.5,60' }).WEBHOOK_RETRY_SCHEDULE).toEqual([1, 2.5, 60]);
    for (const bad of ['5,,300', '5,soon', '-1', '0']) expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(/WEBHOOK_RETRY_SCHEDULE/);
    expect(loadConfig({}).WEBHOOK_TIMEOUT_MS).toBe(10_000);
    expect(loadConfig({}).EVENT_RETENTION_DAYS).toBe(90);
  });
});
