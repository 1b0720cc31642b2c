import { createHash } from 'node:crypto';
import type { Request } from 'express';
import { byCodeUnits } from '../platform/code-unit-order';
import { DomainError } from '../platform/errors/domain-error';

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** 1 to 255 visible ASCII characters: a UUID, or any opaque token of the caller's. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key; undefined when it sends none. A malformed key is a 400. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const key = request.headers[IDEMPOTENCY_KEY_HEADER.toLowerCase()];
  if (key === undefined) return undefined;
  // Sent twice, Node joins the values with ", ", which the pattern refuses.
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw new DomainError('VALIDATION_FAILED', {
      fieldName: IDEMPOTENCY_KEY_HEADER,
      message: 'Idempotency-Key must be sent once, as 1 to 255 visible ASCII characters (a UUID is a good choice).',
    });
  }
  return key;
}

/** JSON with object keys sorted, so that the same body always hashes the same, whatever order its keys came in. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => byCodeUnits(a, b));
    return `{${entries.map(([key, entry]) => `${JSON.stringify(key)}:${canonicalJson(entry)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** What makes two requests "the same request" for a key: method, path and body. */
export function requestFingerprint(request: Request): string {
  const path = request.originalUrl.split('?')[0];
  return createHash('sha256')
    .update(`${request.method} ${path}\n${canonicalJson(request.body)}`)
    .digest('base64url');
}
