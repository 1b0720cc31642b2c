import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpServer } from '../../src/platform/http/http-server';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * What only a real socket can send: bytes Node's HTTP parser refuses, heads
 * over the size limit, repeated headers, and clients too slow to finish.
 * Each gets an ErrorMessage (not Node's empty answer) and the server keeps
 * serving everyone else.
 */
const LIMITS = { headersTimeoutMs: 1000, requestTimeoutMs: 2000, keepAliveTimeoutMs: 5000, maxHeaderSize: 16_384 };

let testApp: TestApp;
let server: Server;
let port: number;

beforeAll(async () => {
  testApp = await startTestApp();
  server = createHttpServer(testApp.app, LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await testApp.close();
});

interface RawAnswer {
  status: number;
  headers: string;
  body: string;
  closed: boolean;
}

/** Writes `chunks` to a fresh connection (pausing `pauseMs` between them) and reads until the server closes it. */
function raw(chunks: Array<string | Buffer>, pauseMs = 0): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (data) => received.push(data));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(received).toString('latin1');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body, closed: true });
    });
    void (async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (pauseMs > 0) await new Promise((wait) => setTimeout(wait, pauseMs));
      }
    })();
  });
}

function expectErrorMessage(answer: RawAnswer, status: number, code: number): void {
  expect(answer.status).toBe(status);
  expect(answer.headers).toMatch(/content-type: application\/json/i);
  expect(JSON.parse(answer.body)).toMatchObject({ status, code, message: expect.any(String), requestId: expect.any(String) });
}

async function stillServing(): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}/health/live`);
  expect(response.status).toBe(200);
}

describe('requests Node itself refuses', () => {
  it.each([
    ['a control character in a header value', 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Note: a\u0001b\r\n\r\n'],
    ['NUL in a header value', 'GET /health/live HTTP/1.1\r\nHost: x\r\nX-Note: a\u0000b\r\n\r\n'],
    ['a control character in the path', 'GET /v1/customers/\u0001 HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a space in a header name', 'GET /health/live HTTP/1.1\r\nHost: x\r\nBad Name: v\r\n\r\n'],
    ['two different Content-Lengths', 'POST /v1/customers HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
  ])('%s: 400 ErrorMessage, connection closed, others still served', async (_case, request) => {
    const answer = await raw([Buffer.from(request, 'latin1')]);
    expectErrorMessage(answer, 400, 1009);
    expect(answer.closed).toBe(true);
    await stillServing();
  });

  it('a request head over the size limit: 431 ErrorMessage', async () => {
    const answer = await raw([`GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectErrorMessage(answer, 431, 1010);
    await stillServing();
  });

  it('a repeated Content-Type: 400 naming it, nothing created', async () => {
    const location = `loc-raw-${randomUUID()}`;
    const body = '{}';
    const answer = await raw([
      `POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${testApp.adminAuthorization.Authorization}\r\n` +
        `Platform-Restaurant-External-ID: ${location}\r\nContent-Type: application/json\r\nContent-Type: text/plain\r\n` +
        `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ]);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 1000, messageKey: 'VALIDATION_FAILED', fieldName: 'Content-Type' });
    expect(await testApp.db.knex('customers').where({ location_id: location })).toEqual([]);
  });
});

describe('slow clients', () => {
  it('headers sent too slowly: answered 408 and closed by the headers timeout, while others are served', async () => {
    const slow = raw(['GET /health/live HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n', 'X-D: 4\r\n'], 400);
    await stillServing();
    const answer = await slow;
    expectErrorMessage(answer, 408, 1011);
  }, 20_000);

  it('a body sent too slowly: the connection is closed by the request timeout, while others are served', async () => {
    const location = `loc-slow-${randomUUID()}`;
    const head =
      `POST /v1/customers HTTP/1.1\r\nHost: x\r\nAuthorization: ${testApp.adminAuthorization.Authorization}\r\n` +
      `Platform-Restaurant-External-ID: ${location}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n`;
    const slow = raw([head, '{"descr', 'iption"', ': "sl', 'ow', '"', ' '], 500);
    await stillServing();
    const answer = await slow;
    expect(answer.closed).toBe(true);
    expect([0, 400, 408]).toContain(answer.status);
    expect(await testApp.db.knex('customers').where({ location_id: location })).toEqual([]);
  }, 20_000);
});
