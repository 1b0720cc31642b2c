import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receiver of the webhook backlog benches: it answers 204 at once and
 * keeps each delivery's lag (arrival minus the `createdAt` of its JSON body)
 * under the endpoint its path names (`/endpoint-N`), on this machine's one clock.
 */
export interface EndpointReceiver {
  port: number;
  /** Lags in ms by endpoint number, since the start or the last clear. */
  lags: Map<number, number[]>;
  close(): void;
}

export async function startEndpointReceiver(): Promise<EndpointReceiver> {
  const lags = new Map<number, number[]>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const endpoint = Number(request.url?.split('-').pop());
      const { createdAt } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { createdAt: string };
      const list = lags.get(endpoint) ?? [];
      list.push(Date.now() - Date.parse(createdAt));
      lags.set(endpoint, list);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, lags, close: () => server.close() };
}
