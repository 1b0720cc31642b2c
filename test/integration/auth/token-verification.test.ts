import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import request from 'supertest';
import { newSigningJwk } from '../../../src/auth/signing-keys';
import { LOCATION_HEADER } from '../../factories/locations';
import { startTestApp, TEST_AUDIENCE, TEST_ISSUER, type TestApp } from '../../support/test-app';
import { accessClaims, base64url, signToken } from '../../support/tokens';

const IDP_ISSUER = 'https://idp.example.test/';
const IDP_AUDIENCE = 'payments-api';

/** A JWKS served on loopback, as an external identity provider would, counting its fetches. */
class FakeIdentityProvider {
  server!: Server;
  keys: JWK[] = [];
  fetches = 0;
  available = true;

  async start(): Promise<string> {
    this.server = createServer((_request, response) => {
      this.fetches += 1;
      if (!this.available) {
        response.destroy();
        return;
      }
      response.setHeader('Content-Type', 'application/json');
      response.end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/jwks.json`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface Signer {
  name: string;
  issuer: string;
  audience: string;
  key: CryptoKey;
  kid: string;
  publicJwk: JWK;
  typ: string;
}

let testApp: TestApp;
const idp = new FakeIdentityProvider();
let idpUrl: string;
const signers: Signer[] = [];

async function signerFrom(name: string, privateJwk: JWK, issuer: string, audience: string, typ: string): Promise<Signer> {
  const key = (await importJWK(privateJwk, 'ES256')) as CryptoKey;
  const { d: _private, ...publicJwk } = privateJwk;
  return { name, issuer, audience, key, kid: privateJwk.kid as string, publicJwk, typ };
}

beforeAll(async () => {
  const idpJwk = await newSigningJwk();
  idpUrl = await idp.start();
  testApp = await startTestApp({ external: { jwksUrl: idpUrl, issuer: IDP_ISSUER, audience: IDP_AUDIENCE } });
  const { privateKey, kid, publicKeys } = testApp.keys;
  signers.push({
    name: 'the built-in issuer',
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    key: privateKey,
    kid,
    publicJwk: publicKeys[0] as JWK,
    typ: 'at+jwt',
  });
  const external = await signerFrom('an external JWKS on loopback', idpJwk, IDP_ISSUER, IDP_AUDIENCE, 'JWT');
  idp.keys = [external.publicJwk];
  signers.push(external);
});
afterAll(async () => {
  await testApp.close();
  await idp.stop();
});

function callWith(token: string) {
  return request(testApp.app).get('/v1/customers?externalReferenceId=x').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, 'loc-1');
}

/** `says`: what the message tells the caller is wrong (an expired token from a forged one). */
async function expectInvalidToken(token: string, says?: RegExp): Promise<void> {
  const response = await callWith(token);
  expect(response.status).toBe(401);
  expect(response.body).toMatchObject({ status: 401, code: 4002, messageKey: 'INVALID_TOKEN' });
  if (says !== undefined) expect(response.body.message).toMatch(says);
  expect(response.headers['www-authenticate']).toBe('Bearer realm="customer-payment-profiles", error="invalid_token"');
}

const now = () => Math.floor(Date.now() / 1000);

describe.each(['the built-in issuer', 'an external JWKS on loopback'])('tokens from %s', (name) => {
  const signer = () => signers.find((candidate) => candidate.name === name) as Signer;
  const header = () => ({ alg: 'ES256', kid: signer().kid, typ: signer().typ });
  const claims = (overrides = {}) => accessClaims({ iss: signer().issuer, aud: signer().audience, ...overrides });

  it('are accepted when valid, including an aud array and up to 60 s of clock skew', async () => {
    await callWith(await signToken(signer().key, header(), claims())).expect(200);
    await callWith(await signToken(signer().key, header(), claims({ aud: ['other', signer().audience] }))).expect(200);
    await callWith(await signToken(signer().key, header(), claims({ exp: now() - 30 }))).expect(200);
    await callWith(await signToken(signer().key, header(), claims({ nbf: now() + 30 }))).expect(200);
    await callWith(await signToken(signer().key, header(), claims({ iat: now() - 60, exp: now() - 60 + 86_400 }))).expect(200);
  });

  it.each([
    ['expired', { exp: now() - 120 }, /has expired: get a new one/],
    ['not yet valid', { nbf: now() + 120 }, /not valid yet/],
    ['without exp', { exp: undefined }, /exp claim/],
    ['with a wrong aud', { aud: 'someone-else' }, /another audience/],
    ['without locations', { locations: undefined }, /lacks the scope or locations/],
    // Issue 17, item 9: an external token living 100 years was accepted.
    ['living 100 years', { iat: now(), exp: now() + 100 * 365 * 86_400 }, /lives longer than/],
    ['living one second longer than AUTH_MAX_TOKEN_LIFETIME_SECONDS', { iat: now() - 60, exp: now() - 60 + 86_401 }, /lives longer than/],
    ['without iat', { iat: undefined }, /iat claim/],
  ])('are refused with 401 invalid_token when %s, saying so', async (_case, overrides, says) => {
    await expectInvalidToken(await signToken(signer().key, header(), claims(overrides)), says);
  });

  it('are refused with a wrong iss', async () => {
    await expectInvalidToken(await signToken(signer().key, header(), claims({ iss: 'https://evil.example/' })), /issuer this service does not trust/);
  });

  it('are refused with alg none', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: signer().typ })}.${base64url(claims())}.`;
    await expectInvalidToken(unsigned);
  });

  it('are refused when HS256-signed with the public key as the secret', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(signer().publicJwk));
    await expectInvalidToken(await signToken(secret, { alg: 'HS256', kid: signer().kid, typ: signer().typ }, claims()));
  });

  it('are refused when signed by an unknown key under a known kid, and under an unknown kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    await expectInvalidToken(await signToken(privateKey, header(), claims()), /signature does not verify/);
    await expectInvalidToken(await signToken(privateKey, { ...header(), kid: 'unknown-kid' }, claims()), /key this service does not know/);
  });

  it('are refused when the payload was tampered with', async () => {
    const [encodedHeader, , signature] = (await signToken(signer().key, header(), claims())).split('.');
    const widened = base64url(claims({ locations: ['*'], scope: 'spi.customers:read spi.customers:write simplified-payments-integration.server:write' }));
    await expectInvalidToken(`${encodedHeader}.${widened}.${signature}`);
  });

  it('never follow a jku header to keys the token names', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    await expectInvalidToken(await signToken(privateKey, { ...header(), kid: 'attacker', jku: 'http://127.0.0.1:1/jwks.json' }, claims()));
  });
});

describe('tokens of neither issuer', () => {
  it.each([
    ['garbage', 'not-a-jwt'],
    ['three garbage parts', 'a.b.c'],
    ['an empty payload', `${base64url({ alg: 'ES256' })}..`],
  ])('refuses %s with 401', async (_case, token) => {
    await expectInvalidToken(token);
  });

  it('refuses a request without a token with 401 and a Bearer challenge', async () => {
    for (const authorization of [undefined, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two parts']) {
      const call = request(testApp.app).get('/v1/customers?externalReferenceId=x').set(LOCATION_HEADER, 'loc-1');
      const response = await (authorization === undefined ? call : call.set('Authorization', authorization));
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="customer-payment-profiles"/);
    }
  });
});

describe('the external JWKS', () => {
  it('is cached: many requests, one fetch', async () => {
    const external = signers[1] as Signer;
    const before = idp.fetches;
    for (let round = 0; round < 5; round += 1) {
      const token = await signToken(external.key, { alg: 'ES256', kid: external.kid }, accessClaims({ iss: IDP_ISSUER, aud: IDP_AUDIENCE }));
      await callWith(token).expect(200);
    }
    expect(idp.fetches - before).toBeLessThanOrEqual(1);
  });

  it('answers 503, not 500, when it cannot be fetched', async () => {
    // A service started while the provider is down: its first fetch fails.
    const down = new FakeIdentityProvider();
    down.available = false;
    const jwksUrl = await down.start();
    const isolated = await startTestApp({ external: { jwksUrl, issuer: IDP_ISSUER, audience: IDP_AUDIENCE } });
    try {
      const external = signers[1] as Signer;
      const token = await signToken(external.key, { alg: 'ES256', kid: external.kid }, accessClaims({ iss: IDP_ISSUER, aud: IDP_AUDIENCE }));
      const response = await request(isolated.app)
        .get('/v1/customers?externalReferenceId=x')
        .set('Authorization', `Bearer ${token}`)
        .set(LOCATION_HEADER, 'loc-1');
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ status: 503, code: 5004, messageKey: 'IDENTITY_PROVIDER_UNAVAILABLE' });
      expect(response.headers['retry-after']).toBeDefined();
    } finally {
      await isolated.close();
      await down.stop();
    }
  });
});

/**
 * Issue 17, item 6: an external provider's token whose client_id happened to
 * be a built-in client's id replayed that client's stored answers, and drew
 * on its rate-limit budget. A caller is its issuer and its client id.
 */
describe('a client id that both issuers use', () => {
  const tokenFrom = (signer: Signer, overrides = {}) =>
    signToken(
      signer.key,
      { alg: 'ES256', kid: signer.kid, typ: signer.typ },
      accessClaims({ iss: signer.issuer, aud: signer.audience, sub: 'test-client', client_id: 'test-client', ...overrides }),
    );
  const createAs = (app: TestApp, token: string, location: string, key?: string) => {
    const call = request(app.app).post('/v1/customers').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send({ description: 'same-body' });
  };

  it('names two callers: the same Idempotency-Key and body never replay the other issuer’s answer', async () => {
    const [builtIn, external] = signers as [Signer, Signer];
    const first = await createAs(testApp, await tokenFrom(builtIn), 'loc-identity', 'shared-key').expect(200);
    const second = await createAs(testApp, await tokenFrom(external), 'loc-identity', 'shared-key').expect(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.id).not.toBe(first.body.id);
    // Each still replays its own.
    const again = await createAs(testApp, await tokenFrom(external), 'loc-identity', 'shared-key').expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(second.body.id);
  });

  it('names two rate-limit budgets', async () => {
    const limited = await startTestApp({
      external: { jwksUrl: idpUrl, issuer: IDP_ISSUER, audience: IDP_AUDIENCE },
      rateLimit: { requests: 2, windowSeconds: 60 },
    });
    try {
      const external = signers[1] as Signer;
      // The limited app has keys of its own.
      const builtInToken = await signToken(
        limited.keys.privateKey,
        { alg: 'ES256', kid: limited.keys.kid, typ: 'at+jwt' },
        accessClaims({ iss: TEST_ISSUER, aud: TEST_AUDIENCE, sub: 'test-client', client_id: 'test-client' }),
      );
      for (let index = 0; index < 2; index += 1) await createAs(limited, builtInToken, 'loc-budget').expect(200);
      await createAs(limited, builtInToken, 'loc-budget').expect(429);
      await createAs(limited, await tokenFrom(external), 'loc-budget').expect(200);
    } finally {
      await limited.close();
    }
  });
});
