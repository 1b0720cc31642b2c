import { createCipheriv, createDecipheriv, createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { z } from 'zod';

/**
 * Secrets the service must read back (webhook signing secrets, payment
 * intents' session secrets) are kept encrypted at rest: AES-256-GCM under a
 * key of the keyring (SECRETS_ENCRYPTION_KEY_FILE), bound to the record they
 * belong to (its table, location and id as associated data: a sealed value
 * copied to another row does not open). A sealed value names its key, so a
 * keyring holding the old key and a new current one reads both while
 * `npm run secrets:rotate` re-seals the rows under the new one.
 *
 * Stored form: `enc1:<key id>:<base64url of 12-byte IV, ciphertext, 16-byte tag>`.
 * A value without that prefix was stored in clear before encryption existed:
 * it is read as it is, and secrets:rotate seals it.
 */
const PREFIX = 'enc1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

export const keyringSchema = z.strictObject({
  current: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
  keys: z.record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    z.base64().refine((key) => Buffer.from(key, 'base64').length === KEY_BYTES, { message: `Must be ${KEY_BYTES} bytes, base64.` }),
  ),
});
export type Keyring = z.infer<typeof keyringSchema>;

export class SecretBox {
  /** Imported once: a cipher made from raw key bytes imports them again each time, most of a seal's cost (docs/performance-history.md, issue 58). */
  private readonly keys: Map<string, KeyObject>;

  /**
   * @param origin where the keyring was read from, as an operator names it
   *   (`SECRETS_ENCRYPTION_KEY_FILE /run/keyring.json`): keys-in-use.ts tells
   *   another process which keyring it lacks.
   */
  constructor(
    readonly keyring: Keyring,
    readonly origin = 'a keyring',
  ) {
    this.keys = new Map(Object.entries(keyring.keys).map(([id, key]) => [id, createSecretKey(Buffer.from(key, 'base64'))]));
    if (!this.keys.has(keyring.current)) throw new Error(`the keyring's current key ${keyring.current} is not among its keys`);
  }

  /** The id of the key new values are sealed with. */
  get currentKeyId(): string {
    return this.keyring.current;
  }

  /** `plaintext` sealed under the current key, for the record `context` names. */
  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.keyring.current) as KeyObject, iv);
    cipher.setAAD(Buffer.from(context));
    const sealed = Buffer.concat([iv, cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}:${this.keyring.current}:${sealed.toString('base64url')}`;
  }

  /** The plaintext of a stored value (a value stored in clear as it is); throws if it was altered, moved or sealed under a key not in the keyring. */
  open(stored: string, context: string): string {
    const sealed = parseSealed(stored);
    if (sealed === undefined) return stored;
    const key = this.keys.get(sealed.keyId);
    if (key === undefined) throw new Error(`a secret is sealed under key ${sealed.keyId}, which the keyring (SECRETS_ENCRYPTION_KEY_FILE) does not hold`);
    const bytes = Buffer.from(sealed.data, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  /** The ids of every key the keyring holds. */
  get keyIds(): string[] {
    return [...this.keys.keys()];
  }

  /**
   * A fingerprint of key `keyId` that reveals nothing of it (an HMAC of a
   * fixed text under the key), so that two keyrings holding different keys
   * under one id are told apart; undefined when the keyring lacks the id.
   */
  keyCheck(keyId: string): string | undefined {
    const key = this.keys.get(keyId);
    return key === undefined ? undefined : createHmac('sha256', key).update('customer-payment-profiles key check').digest('base64url').slice(0, 22);
  }

  /** Whether a stored value is sealed under the current key (secrets:rotate leaves it alone). */
  isCurrent(stored: string): boolean {
    return parseSealed(stored)?.keyId === this.keyring.current;
  }
}

function parseSealed(stored: string): { keyId: string; data: string } | undefined {
  const [prefix, keyId, data, ...rest] = stored.split(':');
  if (prefix !== PREFIX || keyId === undefined || data === undefined || rest.length > 0) return undefined;
  return { keyId, data };
}

/** A keyring with one new random key, current; or `keyring` with a new current key added beside its others. */
export function withNewKey(keyring?: Keyring): Keyring {
  const id = `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}-${randomBytes(3).toString('hex')}`;
  return { current: id, keys: { ...keyring?.keys, [id]: randomBytes(KEY_BYTES).toString('base64') } };
}

let active: SecretBox | undefined;

/** Sets the box every repository seals and opens secrets with: once, at start-up (server.ts, the CLIs, the tests' set-up). */
export function useSecretBox(box: SecretBox): void {
  active = box;
}

/** The box set at start-up; a process that reads or writes a secret without one is a bug, not a fallback to clear text. */
export function secretBox(): SecretBox {
  if (active === undefined) throw new Error('no secrets keyring is set (useSecretBox): SECRETS_ENCRYPTION_KEY_FILE, or the development keyring under DATA_DIR');
  return active;
}

/** The associated data binding a sealed secret to its record. */
export function secretContext(table: 'webhook_endpoints' | 'payment_intents' | 'setup_intents', locationId: string, id: string): string {
  return `${table}:${locationId}:${id}`;
}
