import { looksLikeSecret } from '../platform/validation/secret-look';
import type { ApiClient } from './api-clients';
import { verifyClientSecret } from './client-secret';
import type { LoginThrottle } from './login-throttle';
import type { IssuedToken, TokenIssuer } from './token-issuer';

export type LoginFailure = { kind: 'invalid_client' } | { kind: 'invalid_scope'; scope: string } | { kind: 'throttled'; retryAfterSeconds: number };

export type LoginResult = { ok: true; token: IssuedToken } | { ok: false; failure: LoginFailure; loggedClientId: string };

/**
 * Checked against when the client id is unknown, so that a wrong id takes as
 * long as a wrong secret. Any hash at the default cost does; this one was made
 * by `hashClientSecret` of 32 random bytes nobody kept, once, rather than at
 * every start, where its derivation's memory made the start's peak.
 * `client-secret-derivations.test.ts` holds its cost to the default.
 */
export const DECOY_HASH = 'scrypt$32768$8$1$Hf5qcKnKbXGf9N4LqWlgNw$fvD5jcrQHe8w6YIARfls4U19dljLBZlFV-b-uh2db7c';

/** What a client id may look like to be written to a log as the caller sent it. */
const LOGGABLE_CLIENT_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/**
 * The client id a refused login tried, as the log may show it: a configured
 * client's id as it is; an unknown one only when it has an id's shape and
 * nothing of a secret's (a secret pasted into the id field must not be logged).
 */
function loggableClientId(clientId: string, known: boolean): string {
  if (known || (LOGGABLE_CLIENT_ID.test(clientId) && !looksLikeSecret(clientId))) return clientId;
  return '(withheld: not shaped like a client id)';
}

/** The client-credentials grant, whichever wire format asked for it. */
export class LoginService {
  private readonly clients: Map<string, ApiClient>;

  constructor(
    clients: readonly ApiClient[],
    private readonly issuer: TokenIssuer,
    private readonly throttle: LoginThrottle,
  ) {
    this.clients = new Map(clients.map((client) => [client.clientId, client]));
  }

  /**
   * `requestedScope` is space-separated, a subset of the client's scopes; when
   * absent the token carries all of them. `address` is where the attempt came
   * from: the throttle counts by client id and address (login-throttle.ts).
   */
  async login(clientId: string, clientSecret: string, address: string, requestedScope?: string): Promise<LoginResult> {
    const client = this.clients.get(clientId);
    const loggedClientId = loggableClientId(clientId, client !== undefined);
    const retryAfterSeconds = await this.throttle.admit(clientId, address);
    if (retryAfterSeconds > 0) return { ok: false, failure: { kind: 'throttled', retryAfterSeconds }, loggedClientId };

    const secretMatches = await verifyClientSecret(clientSecret, client?.secretHash ?? DECOY_HASH);
    if (client === undefined || !secretMatches) return { ok: false, failure: { kind: 'invalid_client' }, loggedClientId };
    await this.throttle.succeeded(clientId, address);

    const requested = requestedScope?.split(' ').filter((scope) => scope !== '') ?? [];
    const notGranted = requested.find((scope) => !(client.scopes as readonly string[]).includes(scope));
    if (notGranted !== undefined) return { ok: false, failure: { kind: 'invalid_scope', scope: notGranted }, loggedClientId };
    const scopes = requested.length > 0 ? [...new Set(requested)] : client.scopes;
    return { ok: true, token: await this.issuer.issue(client, scopes) };
  }
}
