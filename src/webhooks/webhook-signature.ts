import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks' secret form: `whsec_` and the base64 of the key's bytes (24 random bytes here). */
const SECRET_PREFIX = 'whsec_';

export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * One `webhook-signature` entry, as the Standard Webhooks specification
 * defines it: `v1,` and the base64 HMAC-SHA256, keyed with the secret's
 * decoded bytes, of `id.timestamp.body`.
 */
function signatureOf(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery; several secrets (during a rotation) give space-separated signatures. */
export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signatureOf(secret, id, timestampSeconds, body)).join(' '),
  };
}
