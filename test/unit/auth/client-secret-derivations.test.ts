import type * as Crypto from 'node:crypto';
import { DEFAULT_COST, isClientSecretHash, parseClientSecretHash } from '../../../src/auth/client-secret';
import { DECOY_HASH } from '../../../src/auth/login.service';

type ClientSecret = typeof import('../../../src/auth/client-secret');

/** A cost cheap enough for a unit test; the gate does not depend on it. */
const CHEAP = { N: 1024, r: 8, p: 1 };

/** client-secret.ts loaded afresh over node:crypto's own scrypt, counting the derivations running at once. */
function withCountedScrypt(): { secrets: ClientSecret; running: { now: number; most: number; started: number } } {
  const running = { now: 0, most: 0, started: 0 };
  let secrets: ClientSecret | undefined;
  jest.isolateModules(() => {
    const actual = jest.requireActual<typeof Crypto>('node:crypto');
    jest.doMock('node:crypto', () => ({
      ...actual,
      scrypt: (...args: unknown[]) => {
        const callback = args.pop() as (error: Error | null, key: Buffer) => void;
        running.now += 1;
        running.started += 1;
        running.most = Math.max(running.most, running.now);
        try {
          (actual.scrypt as (...a: unknown[]) => void)(...args, (error: Error | null, key: Buffer) => {
            running.now -= 1;
            callback(error, key);
          });
        } catch (error) {
          // Refused parameters throw before any work starts.
          running.now -= 1;
          throw error;
        }
      },
    }));
    secrets = jest.requireActual<ClientSecret>('../../../src/auth/client-secret');
  });
  jest.dontMock('node:crypto');
  return { secrets: secrets!, running };
}

describe('client secret derivations', () => {
  it('runs one scrypt at a time in a process: logins that arrive together wait their turn, and each gets its own answer', async () => {
    const { secrets, running } = withCountedScrypt();
    const hashes = await Promise.all(['a', 'b', 'c', 'd'].map((secret) => secrets.hashClientSecret(secret, CHEAP)));
    const checks = await Promise.all([
      secrets.verifyClientSecret('a', hashes[0]!),
      secrets.verifyClientSecret('b', hashes[1]!),
      secrets.verifyClientSecret('wrong', hashes[2]!),
      secrets.verifyClientSecret('d', hashes[3]!),
    ]);
    expect(checks).toEqual([true, true, false, true]);
    expect(running.started).toBe(8);
    expect(running.most).toBe(1);
  });

  it('goes on to the next derivation after one that failed', async () => {
    const { secrets, running } = withCountedScrypt();
    // N must be a power of two: scrypt refuses 1000.
    const failed = secrets.hashClientSecret('a', { N: 1000, r: 8, p: 1 });
    const next = secrets.hashClientSecret('b', CHEAP);
    await expect(failed).rejects.toThrow();
    expect(isClientSecretHash(await next)).toBe(true);
    expect(running.most).toBe(1);
  });

  it("checks an unknown client's secret against a decoy made at the default cost, so that it takes as long as a known client's", () => {
    expect(isClientSecretHash(DECOY_HASH)).toBe(true);
    expect(parseClientSecretHash(DECOY_HASH)?.cost).toEqual(DEFAULT_COST);
  });
});
