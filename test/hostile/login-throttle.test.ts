import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { addressKeyPart, releaseLoginThrottle } from '../../src/auth/login-throttle';
import { LOGIN_PATH } from '../../src/auth/login.router';
import { startTestApp, testSecretHash, type TestApp } from '../support/test-app';

/**
 * Issue 17, item 1: 200 parallel wrong guesses for one client id were all
 * evaluated (the check and the count were two steps), and five wrong guesses
 * from anyone locked the real client out. Requests here come from distinct
 * loopback source addresses, as from distinct machines.
 */
const MAX_FAILURES = 5;
const MAX_FAILURES_PER_ADDRESS = 12;
let testApp: TestApp;
let server: Server;
let port: number;

beforeAll(async () => {
  const secretHash = await testSecretHash('the-real-secret');
  const client = (clientId: string) => ({ clientId, secretHash, scopes: ['spi.customers:read' as const], locations: ['*'] });
  testApp = await startTestApp({
    clients: [client('raced'), client('targeted'), client('released'), client('locked-out'), ...Array.from({ length: 20 }, (_u, i) => client(`sprayed-${i}`))],
    maxLoginFailures: MAX_FAILURES,
    maxLoginFailuresPerAddress: MAX_FAILURES_PER_ADDRESS,
  });
  server = createServer(testApp.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await testApp.close();
});

/** A JSON login sent from `sourceAddress`; answers the status and Retry-After. */
function login(sourceAddress: string, clientId: string, clientSecret: string): Promise<{ status: number; retryAfter?: string }> {
  const body = JSON.stringify({ clientId, clientSecret });
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: sourceAddress,
        method: 'POST',
        path: LOGIN_PATH,
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }));
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}

describe('the login throttle', () => {
  it('evaluates at most AUTH_LOGIN_MAX_FAILURES of 200 parallel wrong guesses; the rest are 429', async () => {
    const answers = await Promise.all(Array.from({ length: 200 }, (_u, i) => login('127.0.0.2', 'raced', `guess-${i}`)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(MAX_FAILURES);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - MAX_FAILURES);
    expect(answers.find((answer) => answer.status === 429)?.retryAfter).toMatch(/^[1-9]\d*$/);
    // The right secret from the guessing address is refused too: it would be a sixth guess.
    expect((await login('127.0.0.2', 'raced', 'the-real-secret')).status).toBe(429);
  });

  it('never lets a stranger’s guesses lock the real client out', async () => {
    for (let i = 0; i < MAX_FAILURES; i += 1) expect((await login('127.0.0.3', 'targeted', `guess-${i}`)).status).toBe(401);
    expect((await login('127.0.0.3', 'targeted', 'guess-x')).status).toBe(429);
    expect((await login('127.0.0.4', 'targeted', 'the-real-secret')).status).toBe(200);
  });

  it('limits one address’s failures across client ids', async () => {
    const answers: number[] = [];
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS + 2; i += 1) answers.push((await login('127.0.0.5', `sprayed-${i}`, 'guess')).status);
    expect(answers.slice(0, MAX_FAILURES_PER_ADDRESS)).toEqual(Array(MAX_FAILURES_PER_ADDRESS).fill(401));
    expect(answers.slice(MAX_FAILURES_PER_ADDRESS)).toEqual([429, 429]);
    // Another address is not affected.
    expect((await login('127.0.0.6', 'sprayed-0', 'the-real-secret')).status).toBe(200);
  });

  it('forgets an address’s failures for a client once that client logs in from it', async () => {
    for (let i = 0; i < MAX_FAILURES - 1; i += 1) expect((await login('127.0.0.7', 'released', `typo-${i}`)).status).toBe(401);
    expect((await login('127.0.0.7', 'released', 'the-real-secret')).status).toBe(200);
    for (let i = 0; i < MAX_FAILURES; i += 1) expect((await login('127.0.0.7', 'released', `typo-again-${i}`)).status).toBe(401);
    expect((await login('127.0.0.7', 'released', 'typo-last')).status).toBe(429);
  });
});

describe('a locked-out client', () => {
  it('is released at once by the operator’s command, from every address', async () => {
    for (const address of ['127.0.0.8', '127.0.0.9']) {
      for (let i = 0; i < MAX_FAILURES; i += 1) await login(address, 'locked-out', `guess-${i}`);
      expect((await login(address, 'locked-out', 'the-real-secret')).status).toBe(429);
    }
    expect(await releaseLoginThrottle(testApp.db.knex, 'locked-out')).toBe(2);
    expect((await login('127.0.0.8', 'locked-out', 'the-real-secret')).status).toBe(200);
    expect((await login('127.0.0.9', 'locked-out', 'the-real-secret')).status).toBe(200);
  });
});

describe('the address a count is kept for', () => {
  it.each([
    ['127.0.0.2', '127.0.0.2'],
    ['::ffff:127.0.0.2', '127.0.0.2'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0000:abcd:1:2:3', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('is %s → %s: an IPv6 host counts as its /64', (address, key) => {
    expect(addressKeyPart(address)).toBe(key);
  });
});
