import type { JWK } from 'jose';
import type { Knex } from 'knex';
import type { Config } from '../platform/config';
import { loadApiClients, type ApiClient } from './api-clients';
import { LoginThrottle } from './login-throttle';
import { LoginService } from './login.service';
import { loadSigningKeys, type SigningKeys } from './signing-keys';
import { TokenIssuer } from './token-issuer';
import { TokenVerifier, type ExternalIssuerSettings } from './token-verifier';

/** Everything the HTTP layer needs for authentication and authorization. */
export interface Auth {
  verifier: TokenVerifier;
  login: LoginService;
  publicKeys: JWK[];
}

export interface AuthSettings {
  issuer: string;
  audience: string;
  ttlSeconds: number;
  /** Longest lifetime (`exp` - `iat`) accepted from any issuer. */
  maxTokenLifetimeSeconds: number;
  maxLoginFailures: number;
  maxLoginFailuresPerAddress: number;
  loginWindowSeconds: number;
  external?: ExternalIssuerSettings;
}

/** `db` holds the login throttle's counts, shared by every replica. */
export function assembleAuth(keys: SigningKeys, clients: readonly ApiClient[], settings: AuthSettings, db: Knex): Auth {
  const { issuer, audience } = settings;
  const tokenIssuer = new TokenIssuer(keys, { issuer, audience, ttlSeconds: settings.ttlSeconds });
  const throttle = new LoginThrottle(db, {
    maxFailures: settings.maxLoginFailures,
    maxFailuresPerAddress: settings.maxLoginFailuresPerAddress,
    windowSeconds: settings.loginWindowSeconds,
  });
  return {
    verifier: new TokenVerifier({ issuer, audience, publicKeys: keys.publicKeys, maxLifetimeSeconds: settings.maxTokenLifetimeSeconds }, settings.external),
    login: new LoginService(clients, tokenIssuer, throttle),
    publicKeys: keys.publicKeys,
  };
}

export function authSettingsFrom(config: Config): AuthSettings {
  return {
    issuer: config.TOKEN_ISSUER,
    audience: config.TOKEN_AUDIENCE,
    ttlSeconds: config.TOKEN_TTL_SECONDS,
    maxTokenLifetimeSeconds: config.AUTH_MAX_TOKEN_LIFETIME_SECONDS,
    maxLoginFailures: config.AUTH_LOGIN_MAX_FAILURES,
    maxLoginFailuresPerAddress: config.AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS,
    loginWindowSeconds: config.AUTH_LOGIN_WINDOW_SECONDS,
    ...(config.AUTH_JWKS_URL !== undefined && config.AUTH_ISSUER !== undefined && config.AUTH_AUDIENCE !== undefined
      ? { external: { jwksUrl: config.AUTH_JWKS_URL, issuer: config.AUTH_ISSUER, audience: config.AUTH_AUDIENCE } }
      : {}),
  };
}

export interface AuthMaterial {
  keys: SigningKeys;
  clients: readonly ApiClient[];
}

/**
 * Keys and clients from the configuration (see signing-keys.ts and
 * api-clients.ts for the rules), loaded before anything else opens so that a
 * production misconfiguration stops start-up at once.
 */
export async function loadAuthMaterial(config: Config): Promise<AuthMaterial> {
  return { keys: await loadSigningKeys(config), clients: await loadApiClients(config) };
}
