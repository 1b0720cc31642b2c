import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { devClientToken, startSourceService, type RunningService } from '../support/process/service-process';

/**
 * SIGTERM to a real service process while requests are in flight: their bodies
 * are still arriving when the signal lands, and each must still be answered.
 */
let service: RunningService;
beforeAll(async () => {
  service = await startSourceService({ SHUTDOWN_TIMEOUT_MS: '10000' });
}, 90_000);
afterAll(() => service.stop());

/** A POST whose body is sent in two halves, so the request is in flight until `finish` is called. */
function slowCreate(port: number, accessToken: string, reference: string): { finish(): void; answer: Promise<string> } {
  const body = JSON.stringify({ externalReferenceId: reference });
  const half = Math.floor(body.length / 2);
  const socket: Socket = connect(port, '127.0.0.1');
  socket.write(
    [
      'POST /v1/customers HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${accessToken}`,
      'Platform-Restaurant-External-ID: shutdown-test',
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body.slice(0, half),
    ].join('\r\n'),
  );
  let received = '';
  const answer = new Promise<string>((resolve, reject) => {
    socket.on('data', (chunk) => (received += chunk.toString('utf8')));
    socket.on('end', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  return { finish: () => socket.write(body.slice(half)), answer };
}

describe('SIGTERM with requests in flight', () => {
  it('finishes every in-flight request, refuses new connections, and exits 0', async () => {
    const accessToken = await devClientToken(service.baseUrl);
    const inFlight = Array.from({ length: 5 }, (_unused, index) => slowCreate(service.port, accessToken, `in-flight-${index}`));
    await sleep(300);

    service.signal('SIGTERM');
    await sleep(300);
    // The listener is closed: a new connection is refused.
    await expect(fetch(`${service.baseUrl}/health/live`)).rejects.toThrow();

    for (const request of inFlight) request.finish();
    const answers = await Promise.all(inFlight.map((request) => request.answer));
    answers.forEach((answer, index) => {
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      // Told to close the connection, so no client reuses it after the server is gone.
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer).toContain(`"externalReferenceId":"in-flight-${index}"`);
    });

    await expect(service.exited).resolves.toBe(0);
    expect(service.logLines.some((line) => line.includes('"msg":"shut down"'))).toBe(true);
  }, 60_000);
});
