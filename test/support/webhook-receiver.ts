import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** How the receiver answers one request: a status, optionally after a delay. */
export type Answer = {
  status: number;
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
  /** A body that never ends: 16 kB chunks until the caller hangs up. */
  endless?: boolean;
};

/**
 * An integrator's webhook receiver on 127.0.0.1: it keeps every request and
 * answers as `answer` says (200 by default), per request.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Requests answered so far (a delayed answer counts once it is sent). */
  answered = 0;
  answer: (request: ReceivedWebhook) => Answer = () => ({ status: 200 });
  private server: Server | undefined;
  private port = 0;

  async start(port = 0): Promise<this> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const received = { path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
        this.received.push(received);
        const { status, delayMs = 0, body = `answered ${status}`, headers = {}, endless = false } = this.answer(received);
        setTimeout(() => {
          this.answered += 1;
          if (response.destroyed) return;
          response.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
          if (!endless) return void response.end(body);
          const chunk = 'x'.repeat(16 * 1024);
          const pour = (): void => {
            while (!response.destroyed && response.write(chunk));
            if (!response.destroyed) response.once('drain', pour);
          };
          pour();
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hooks'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Stops listening (connections refused from now on); `start(receiver.portInUse)` brings it back on the same address. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  get portInUse(): number {
    return this.port;
  }

  /** The event ids received, in arrival order. */
  eventIds(): string[] {
    return this.received.map((request) => request.headers['webhook-id'] as string);
  }
}

/** Polls `condition` until true, failing after `timeoutMs`. */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
