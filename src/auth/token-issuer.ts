import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ApiClient } from './api-clients';
import type { SigningKeys } from './signing-keys';

export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

export interface TokenSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

/** Signs access tokens in the RFC 9068 shape (`typ: at+jwt`), plus the client's `locations`. */
export class TokenIssuer {
  constructor(
    private readonly keys: SigningKeys,
    private readonly settings: TokenSettings,
  ) {}

  async issue(client: ApiClient, scopes: readonly string[]): Promise<IssuedToken> {
    const scope = scopes.join(' ');
    const accessToken = await new SignJWT({ client_id: client.clientId, scope, locations: client.locations })
      .setProtectedHeader({ alg: this.keys.alg, kid: this.keys.kid, typ: 'at+jwt' })
      .setIssuer(this.settings.issuer)
      .setAudience(this.settings.audience)
      .setSubject(client.clientId)
      .setIssuedAt()
      .setExpirationTime(`${this.settings.ttlSeconds}s`)
      .setJti(randomUUID())
      .sign(this.keys.privateKey);
    return { accessToken, expiresIn: this.settings.ttlSeconds, scope };
  }
}
