import type { Response } from 'express';

/**
 * A JSON answer with the headers Express's `res.json` gives it (the type
 * with its charset, the length; no body to a HEAD, which Node drops), without
 * the rest of `res.send`: it parses the content type it has just set, looks
 * up the ETag function and asks whether the request is fresh, which only an
 * answer with an ETag needs (api-router.ts sends those with `res.json`).
 * What that costs a read: docs/performance-history.md.
 */
export function sendJson(response: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = status;
  response.setHeader('Content-Type', 'application/json; charset=utf-8');
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.end(text);
}
