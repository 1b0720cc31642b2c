import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Client secrets are kept only as scrypt hashes: `scrypt$<N>$<r>$<p>$<salt>$<hash>`
 * (salt and hash in base64url). scrypt is in Node itself; its cost makes an
 * online or offline guess slow, and the parameters travel with each hash so
 * they can be raised later without breaking existing entries.
 */
export const DEFAULT_COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
const HASH_FORMAT = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** The last derivation queued in this process; the next starts when it ends, whatever its outcome. */
let lastDerivation: Promise<unknown> = Promise.resolve();

/**
 * One derivation at a time in a process: each holds 128 * N * r bytes while
 * it runs (32 MiB at the default cost), so logins that arrived together on
 * libuv's four threads held four times that at once, on top of everything
 * else the process holds. A login is rare (its token lasts an hour), so
 * logins that arrive together wait their turn instead.
 */
function derive(secret: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const run = lastDerivation.then(() => deriveNow(secret, salt, cost));
  lastDerivation = run.catch(() => undefined);
  return run;
}

function deriveNow(secret: string, salt: Buffer, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; allow exactly that much (Node's default cap is 32 MiB).
  const options: ScryptOptions = { ...cost, maxmem: 256 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashClientSecret(secret: string, cost = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(secret, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export function isClientSecretHash(value: string): boolean {
  return HASH_FORMAT.test(value);
}

/** A stored hash read back: its cost, salt and derived key; undefined when it is not one. */
export function parseClientSecretHash(storedHash: string): { cost: { N: number; r: number; p: number }; salt: Buffer; hash: Buffer } | undefined {
  const match = HASH_FORMAT.exec(storedHash);
  if (match === null) return undefined;
  const [, N, r, p, salt, hash] = match as unknown as [string, string, string, string, string, string];
  return { cost: { N: Number(N), r: Number(r), p: Number(p) }, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
}

/** Whether `secret` matches `storedHash`, compared in constant time. */
export async function verifyClientSecret(secret: string, storedHash: string): Promise<boolean> {
  const stored = parseClientSecretHash(storedHash);
  if (stored === undefined) return false;
  const actual = await derive(secret, stored.salt, stored.cost);
  return actual.length === stored.hash.length && timingSafeEqual(actual, stored.hash);
}

/** A new client secret: 32 random bytes, base64url. */
export function newClientSecret(): string {
  return randomBytes(32).toString('base64url');
}
