import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { SERVICE_VERSION } from '../platform/service-version';
import { isPublicAddress, publicOnlyLookup } from './webhook-target';

/** The most of an endpoint's answer read: enough for an error message, never enough to exhaust memory. */
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendSettings {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

/**
 * POSTs one delivery. A 2xx answer within the timeout is a success; anything
 * else (another status, a refused or reset connection, the timeout) a
 * failure with its reason. Redirects are not followed (a 3xx is a failure),
 * at most 64 kB of the answer is read, and, unless private targets are
 * allowed, only public addresses are connected to.
 */
export function sendWebhook(url: string, headers: Record<string, string>, body: string, settings: SendSettings): Promise<SendOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (!settings.allowPrivate && (target.protocol !== 'https:' || (isIP(literal) !== 0 && !isPublicAddress(literal)))) {
    return Promise.resolve({ ok: false, statusCode: null, durationMs: 0, error: 'refused: not a public https target' });
  }
  const client = target.protocol === 'https:' ? https : http;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: elapsed() });
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'User-Agent': `customer-payment-profiles-webhooks/${SERVICE_VERSION}`,
          ...headers,
        },
        ...(settings.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (response) => {
        const statusCode = response.statusCode ?? 0;
        const ok = statusCode >= 200 && statusCode < 300;
        let read = 0;
        const done = () => finish({ ok, statusCode, error: ok ? null : `answered ${statusCode}` });
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= MAX_RESPONSE_BYTES) {
            response.destroy();
            done();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('close', done);
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`timed out after ${settings.timeoutMs} ms`)), settings.timeoutMs);
    request.on('error', (error) => finish({ ok: false, statusCode: null, error: error.message }));
    request.end(body);
  });
}
