import { clientCredentials } from '../../../clients/typescript/src/payment-profiles-client';

/** A token endpoint on a fake fetch: counts logins, answers tokens that live `expiresIn` seconds, or refuses. */
function tokenEndpoint(expiresIn: number) {
  const state = { logins: 0, refuse: false };
  const fetch = (async () => {
    state.logins += 1;
    if (state.refuse) {
      return new Response(
        JSON.stringify({ status: 429, code: 4291, message: 'Too many failed logins.', messageKey: 'TOO_MANY_LOGIN_ATTEMPTS', requestId: 'r' }),
        {
          status: 429,
          headers: { 'Content-Type': 'application/json' },
        },
      );
    }
    const token = { tokenType: 'Bearer', scope: 's', expiresIn, accessToken: `token-${state.logins}`, idToken: null, refreshToken: null };
    return new Response(JSON.stringify({ token, status: 'SUCCESS' }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  }) as typeof globalThis.fetch;
  return { state, fetch };
}

describe('clientCredentials (the typed client keeping a token fresh)', () => {
  it('logs in once, reuses the token, and logs in again a minute before it expires', async () => {
    const { state, fetch } = tokenEndpoint(600);
    let now = 1_000_000;
    const token = clientCredentials({ baseUrl: 'http://service.test', clientId: 'c', clientSecret: 's', fetch, now: () => now });
    expect(await token()).toBe('token-1');
    now += 539_000;
    expect(await token()).toBe('token-1');
    now += 1_000;
    expect(await token()).toBe('token-2');
    expect(state.logins).toBe(2);
  });

  it('shares one login among concurrent calls', async () => {
    const { state, fetch } = tokenEndpoint(600);
    const token = clientCredentials({ baseUrl: 'http://service.test', clientId: 'c', clientSecret: 's', fetch });
    expect(await Promise.all([token(), token(), token()])).toEqual(['token-1', 'token-1', 'token-1']);
    expect(state.logins).toBe(1);
  });

  it("rejects with the service's message when the login is refused, and tries again on the next call", async () => {
    const { state, fetch } = tokenEndpoint(600);
    state.refuse = true;
    const token = clientCredentials({ baseUrl: 'http://service.test', clientId: 'c', clientSecret: 's', fetch });
    await expect(token()).rejects.toThrow('Login failed with HTTP 429: Too many failed logins.');
    state.refuse = false;
    expect(await token()).toBe('token-2');
  });
});
