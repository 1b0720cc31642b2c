import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTVerifyGetKey, type JWK } from 'jose';
import { z } from 'zod';
import { DomainError } from '../platform/errors/domain-error';
import type { AccessTokenClaims } from '../platform/http/request-context';
import { TOKEN_ALGORITHMS } from './signing-keys';
import { VerifiedTokenCache } from './verified-token-cache';

interface TrustedIssuer {
  issuer: string;
  audience: string;
  keys: JWTVerifyGetKey;
  /** Our own tokens must say `typ: at+jwt`; an external provider's need not. */
  typ?: string;
  /** Keys fetched from a provider, which can be unreachable. */
  remote: boolean;
}

export interface ExternalIssuerSettings {
  jwksUrl: string;
  issuer: string;
  audience: string;
}

/** RFC 8725: a little clock skew between issuer and verifier is tolerated, no more. */
const CLOCK_TOLERANCE_SECONDS = 60;
const JWKS_FETCH_TIMEOUT_MS = 3000;
/** After a fetch, an unknown `kid` waits this long before the JWKS is fetched again. */
const JWKS_COOLDOWN_MS = 30_000;
const JWKS_CACHE_MAX_AGE_MS = 10 * 60_000;

const claimsSchema = z.object({
  sub: z.string().min(1),
  client_id: z.string().min(1).optional(),
  scope: z.string().default(''),
  locations: z.array(z.string().min(1)).min(1),
});

/**
 * Verifies bearer tokens from this service's own issuer and, when configured,
 * from one external identity provider. The unverified `iss` only picks which
 * issuer's keys and rules apply; everything is then checked against that
 * issuer: signature (pinned asymmetric algorithms), `iss`, `aud`, `exp`, `nbf`,
 * and a lifetime (`exp` - `iat`) of at most `maxLifetimeSeconds`: a stolen
 * token from a provider that mints long-lived ones must not work for years.
 */
export class TokenVerifier {
  private readonly issuers: Map<string, TrustedIssuer>;

  private readonly maxLifetimeSeconds: number;

  constructor(
    local: { issuer: string; audience: string; publicKeys: JWK[]; maxLifetimeSeconds: number },
    external?: ExternalIssuerSettings,
    private readonly verified = new VerifiedTokenCache(),
  ) {
    this.maxLifetimeSeconds = local.maxLifetimeSeconds;
    this.issuers = new Map([
      [local.issuer, { issuer: local.issuer, audience: local.audience, keys: createLocalJWKSet({ keys: local.publicKeys }), typ: 'at+jwt', remote: false }],
    ]);
    if (external !== undefined) {
      // jose never follows a token's jku or x5u header: keys come only from this URL.
      const keys = createRemoteJWKSet(new URL(external.jwksUrl), {
        timeoutDuration: JWKS_FETCH_TIMEOUT_MS,
        cooldownDuration: JWKS_COOLDOWN_MS,
        cacheMaxAge: JWKS_CACHE_MAX_AGE_MS,
      });
      this.issuers.set(external.issuer, { issuer: external.issuer, audience: external.audience, keys, remote: true });
    }
  }

  async verify(token: string): Promise<AccessTokenClaims> {
    return this.verified.get(token) ?? this.verifyAndRemember(token);
  }

  private async verifyAndRemember(token: string): Promise<AccessTokenClaims> {
    const trusted = this.issuerOf(token);
    try {
      const { payload } = await jwtVerify(token, trusted.keys, {
        issuer: trusted.issuer,
        audience: trusted.audience,
        algorithms: [...TOKEN_ALGORITHMS],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        requiredClaims: ['exp', 'iat', 'sub'],
        ...(trusted.typ === undefined ? {} : { typ: trusted.typ }),
      });
      // requiredClaims makes exp and iat present, and jose checks they are numbers.
      const lifetimeSeconds = (payload.exp as number) - (payload.iat as number);
      if (lifetimeSeconds > this.maxLifetimeSeconds) {
        throw invalidToken(`The access token lives longer than ${this.maxLifetimeSeconds} seconds (exp - iat).`);
      }
      const claims = claimsSchema.safeParse(payload);
      if (!claims.success) throw invalidToken('The access token lacks the scope or locations claims.');
      const verified: AccessTokenClaims = {
        issuer: trusted.issuer,
        clientId: claims.data.client_id ?? claims.data.sub,
        scopes: new Set(claims.data.scope.split(' ').filter((scope) => scope !== '')),
        locations: claims.data.locations,
      };
      this.verified.set(token, verified, payload.exp as number);
      return verified;
    } catch (error) {
      if (error instanceof DomainError || isTokenFault(error)) throw error instanceof DomainError ? error : invalidToken(tokenFaultMessage(error));
      // Not the token's fault: from an external provider, its key set could not
      // be had (time-out, network, not a JWKS), which is an outage callers retry.
      if (trusted.remote) throw new DomainError('IDENTITY_PROVIDER_UNAVAILABLE');
      throw error;
    }
  }

  private issuerOf(token: string): TrustedIssuer {
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      throw invalidToken('The access token is malformed: not a JSON Web Token.');
    }
    const trusted = typeof issuer === 'string' ? this.issuers.get(issuer) : undefined;
    if (trusted === undefined) throw invalidToken('The access token is from an issuer this service does not trust (its iss).');
    return trusted;
  }
}

export function invalidToken(message?: string): DomainError {
  return new DomainError('INVALID_TOKEN', {
    ...(message === undefined ? {} : { message }),
    headers: { 'WWW-Authenticate': 'Bearer realm="customer-payment-profiles", error="invalid_token"' },
  });
}

/** jose's errors that mean the token itself is bad, whoever issued it. */
const TOKEN_FAULTS = [
  errors.JWTExpired,
  errors.JWTClaimValidationFailed,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
];

function isTokenFault(error: unknown): boolean {
  return TOKEN_FAULTS.some((fault) => error instanceof fault);
}

/**
 * What is wrong with the token, in words a caller can act on: an expired
 * token wants a new login, a wrong audience a different token, a signature
 * that does not verify a token from another service (RFC 6750's error_description).
 */
function tokenFaultMessage(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The access token has expired: get a new one from the token endpoint.';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `The access token lacks the ${error.claim} claim.`;
    if (error.claim === 'nbf' || error.claim === 'iat') return `The access token is not valid yet (its ${error.claim} is in the future): check the clocks.`;
    if (error.claim === 'aud') return 'The access token is for another audience than this service.';
    return `The access token's ${error.claim} claim is not accepted: ${error.reason}.`;
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The access token's signature does not verify.";
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return 'The access token is signed by a key this service does not know (its kid).';
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return `The access token is signed with an algorithm this service does not accept (${TOKEN_ALGORITHMS.join(' or ')}).`;
  }
  return 'The access token is malformed.';
}
