import { importJWK, type CryptoKey, type JWK } from 'jose';
import { newSigningJwk } from '../../../src/auth/signing-keys';
import { TokenVerifier } from '../../../src/auth/token-verifier';
import type { AccessTokenClaims } from '../../../src/platform/http/request-context';
import { VerifiedTokenCache } from '../../../src/auth/verified-token-cache';
import { accessClaims, signToken } from '../../support/tokens';

const ISSUER = 'urn:test-issuer';
const AUDIENCE = 'test-audience';
const claims = (clientId: string): AccessTokenClaims => ({ issuer: ISSUER, clientId, scopes: new Set(['a']), locations: ['*'] });

describe('VerifiedTokenCache', () => {
  let clock = 1_000_000;
  const now = () => clock;

  it('answers the claims of a kept token until its exp, and not from then on', () => {
    const cache = new VerifiedTokenCache(10, now);
    cache.set('token-1', claims('one'), 1_060);
    expect(cache.get('token-1')?.clientId).toBe('one');
    clock = 1_059_999;
    expect(cache.get('token-1')?.clientId).toBe('one');
    clock = 1_060_000;
    expect(cache.get('token-1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keys on the whole token: any other token misses', () => {
    clock = 1_000_000;
    const cache = new VerifiedTokenCache(10, now);
    cache.set('aaa.bbb.ccc', claims('one'), 2_000);
    expect(cache.get('aaa.bbb.ccd')).toBeUndefined();
    expect(cache.get('aaa.bbb.cc')).toBeUndefined();
  });

  it('does not keep a token whose exp has passed (accepted within the clock tolerance)', () => {
    clock = 1_000_000;
    const cache = new VerifiedTokenCache(10, now);
    cache.set('late', claims('late'), 999);
    expect(cache.size).toBe(0);
  });

  it('stays within its size: expired entries go first, then the oldest', () => {
    clock = 1_000_000;
    const cache = new VerifiedTokenCache(3, now);
    cache.set('expires-soon', claims('soon'), 1_001);
    cache.set('second', claims('second'), 2_000);
    cache.set('third', claims('third'), 2_000);
    clock = 1_001_000;
    cache.set('fourth', claims('fourth'), 2_000);
    expect(cache.size).toBe(3);
    expect(cache.get('expires-soon')).toBeUndefined();
    cache.set('fifth', claims('fifth'), 2_000);
    expect(cache.size).toBe(3);
    expect(cache.get('second')).toBeUndefined();
    expect(['third', 'fourth', 'fifth'].map((token) => cache.get(token)?.clientId)).toEqual(['third', 'fourth', 'fifth']);
  });

  it('full of live tokens, sweeps for expired ones once per an eighth of its size of new tokens, not for each', () => {
    clock = 1_000_000;
    let clockReads = 0;
    const size = 800;
    const cache = new VerifiedTokenCache(size, () => {
      clockReads += 1;
      return clock;
    });
    for (let i = 0; i < size; i += 1) cache.set(`live-${i}`, claims('live'), 2_000);
    clockReads = 0;
    const more = 8_000;
    for (let i = 0; i < more; i += 1) cache.set(`new-${i}`, claims('new'), 2_000);
    expect(cache.size).toBe(size);
    // One reading of the clock per token kept, and one per sweep: a sweep for each would make it 2 × 8,000.
    expect(clockReads).toBe(more + more / (size / 8));
  });
});

describe('TokenVerifier with its cache of verified tokens', () => {
  let key: CryptoKey;
  let kid: string;
  let publicJwk: JWK;

  beforeAll(async () => {
    const privateJwk = await newSigningJwk();
    key = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
    kid = privateJwk.kid as string;
    const { d: _private, ...rest } = privateJwk;
    publicJwk = rest;
  });
  afterEach(() => jest.useRealTimers());

  const verifierWith = (cache: VerifiedTokenCache) =>
    new TokenVerifier({ issuer: ISSUER, audience: AUDIENCE, publicKeys: [publicJwk], maxLifetimeSeconds: 86_400 }, undefined, cache);
  const sign = (overrides = {}) => signToken(key, { alg: 'ES256', kid, typ: 'at+jwt' }, accessClaims({ iss: ISSUER, aud: AUDIENCE, ...overrides }));

  it('keeps a token it verified, and answers a kept one without verifying it again', async () => {
    const cache = new VerifiedTokenCache();
    const verifier = verifierWith(cache);
    await verifier.verify(await sign());
    expect(cache.size).toBe(1);
    // A kept entry is trusted as it is: proof that the cache is consulted first.
    cache.set('not-even-a-jwt', claims('from-the-cache'), Math.floor(Date.now() / 1000) + 60);
    await expect(verifier.verify('not-even-a-jwt')).resolves.toMatchObject({ clientId: 'from-the-cache' });
  });

  it('refuses a token whose signature was altered after the original was kept', async () => {
    const verifier = verifierWith(new VerifiedTokenCache());
    const token = await sign();
    await verifier.verify(token);
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`;
    await expect(verifier.verify(`${header}.${payload}.${flipped}`)).rejects.toMatchObject({ errorCode: 'INVALID_TOKEN' });
  });

  it('refuses a kept token once it has expired (beyond the clock tolerance)', async () => {
    jest.useFakeTimers({ now: Date.now(), doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const verifier = verifierWith(new VerifiedTokenCache());
    const exp = Math.floor(Date.now() / 1000) + 120;
    const token = await sign({ exp });
    await expect(verifier.verify(token)).resolves.toMatchObject({ clientId: 'test-client' });
    jest.setSystemTime((exp + 61) * 1000);
    await expect(verifier.verify(token)).rejects.toMatchObject({ errorCode: 'INVALID_TOKEN' });
  });
});
