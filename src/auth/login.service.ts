import type { ApiClient } from './api-clients';
import { hashClientSecret, verifyClientSecret } from './client-secret';
import type { LoginThrottle } from './login-throttle';
import type { IssuedToken, TokenIssuer } from './token-issuer';

export type LoginFailure =
  | { kind: 'invalid_client' }
  | { kind: 'invalid_scope'; scope: string }
  | { kind: 'throttled'; retryAfterSeconds: number };

export type LoginResult = { ok: true; token: IssuedToken } | { ok: false; failure: LoginFailure };

/** The client-credentials grant, whichever wire format asked for it. */
export class LoginService {
  private readonly clients: Map<string, ApiClient>;
  /** Checked against when the client id is unknown, so that case takes as long as a wrong secret. */
  private readonly decoyHash: Promise<string>;

  constructor(
    clients: readonly ApiClient[],
    private readonly issuer: TokenIssuer,
    private readonly throttle: LoginThrottle,
  ) {
    this.clients = new Map(clients.map((client) => [client.clientId, client]));
    this.decoyHash = hashClientSecret('decoy');
  }

  /**
   * `requestedScope` is space-separated, a subset of the client's scopes; when
   * absent the token carries all of them. `address` is where the attempt came
   * from: the throttle counts by client id and address (login-throttle.ts).
   */
  async login(clientId: string, clientSecret: string, address: string, requestedScope?: string): Promise<LoginResult> {
    const retryAfterSeconds = await this.throttle.admit(clientId, address);
    if (retryAfterSeconds > 0) return { ok: false, failure: { kind: 'throttled', retryAfterSeconds } };

    const client = this.clients.get(clientId);
    const secretMatches = await verifyClientSecret(clientSecret, client?.secretHash ?? (await this.decoyHash));
    if (client === undefined || !secretMatches) return { ok: false, failure: { kind: 'invalid_client' } };
    await this.throttle.succeeded(clientId, address);

    const requested = requestedScope?.split(' ').filter((scope) => scope !== '') ?? [];
    const notGranted = requested.find((scope) => !(client.scopes as readonly string[]).includes(scope));
    if (notGranted !== undefined) return { ok: false, failure: { kind: 'invalid_scope', scope: notGranted } };
    const scopes = requested.length > 0 ? [...new Set(requested)] : client.scopes;
    return { ok: true, token: await this.issuer.issue(client, scopes) };
  }
}
