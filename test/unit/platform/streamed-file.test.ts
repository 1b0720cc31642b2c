import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { sendStreamedFile, StreamedFile } from '../../../src/platform/http/streamed-file';

/**
 * A file answer written to a client that reads slower than it is made:
 * the writer waits for each drain, and leaves no listener behind however
 * many times it waited.
 */
let server: Server;
let url: string;
const seen: { waits: number; listenersBefore: number; listenersAfter: number } = { waits: 0, listenersBefore: 0, listenersAfter: 0 };

beforeAll(async () => {
  const app = express();
  app.get('/file', async (request, response) => {
    seen.listenersBefore = response.listenerCount('close') + response.listenerCount('drain');
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = (async function* () {
      for (let index = 0; index < 400; index += 1) yield chunk;
    })();
    const write = response.write.bind(response);
    response.write = ((...args: Parameters<typeof write>) => {
      const flushed = write(...args);
      if (!flushed) seen.waits += 1;
      return flushed;
    }) as typeof response.write;
    await sendStreamedFile(request, response, 200, new StreamedFile('text/csv', 'big.csv', chunks));
    seen.listenersAfter = response.listenerCount('close') + response.listenerCount('drain');
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('waits for the slow reader and leaves no drain or close listener behind', async () => {
  const answer = await fetch(`${url}/file`);
  expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  let bytes = 0;
  for await (const part of answer.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += part.byteLength;
    // A slow reader: the server's buffers fill, and it waits.
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  expect(bytes).toBe(400 * 64 * 1024);
  expect(seen.waits).toBeGreaterThan(20);
  expect(seen.listenersAfter).toBeLessThanOrEqual(seen.listenersBefore);
});
