import { randomUUID } from 'node:crypto';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';

/** Claims of a well-formed access token; override any of them. */
export function accessClaims(overrides: JWTPayload = {}): JWTPayload {
  const now = Math.floor(Date.now() / 1000);
  return {
    sub: 'test-client',
    client_id: 'test-client',
    scope: 'spi.customers:read spi.customers:write',
    locations: ['*'],
    iat: now,
    exp: now + 300,
    jti: randomUUID(),
    ...overrides,
  };
}

/** Signs `claims` with `key`, exactly as given: no defaults, so tests control every claim and header. */
export function signToken(key: CryptoKey | Uint8Array, header: { alg: string; kid?: string; typ?: string; jku?: string }, claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header).sign(key);
}

export function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}
