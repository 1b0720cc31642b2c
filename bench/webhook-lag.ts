import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The receiver of the webhook-lag measurement: it answers 204 at once and
 * keeps, for each event delivered, how long after the event's `createdAt`
 * (its transaction's time, from the payload) it arrived, on this machine's
 * one clock. A repeated delivery of an event is counted apart: there must be none.
 */
export interface LagReceiver {
  url: string;
  /** Events received since `reset`, their lag in ms. */
  lags(): number[];
  duplicates(): number;
  reset(): void;
  close(): Promise<void>;
}

export async function startLagReceiver(): Promise<LagReceiver> {
  let lags = new Map<string, number>();
  let duplicates = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const arrived = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string; createdAt: string };
      if (lags.has(event.id)) duplicates += 1;
      else lags.set(event.id, arrived - Date.parse(event.createdAt));
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/bench-webhooks`,
    lags: () => [...lags.values()],
    duplicates: () => duplicates,
    reset: () => {
      lags = new Map();
      duplicates = 0;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
