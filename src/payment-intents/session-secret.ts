import { randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_SECRET_PATTERN } from '../auth/session-grant';

/** 192 random bits; the spec asks for at least 128. */
const RANDOM_BYTES = 24;

/** `PI_<intent id>_SECRET_<random, base64url>`: the intent id lets a check find its intent without a scan. */
export function newSessionSecret(intentId: string): string {
  return `PI_${intentId}_SECRET_${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

/** The intent id inside a well-formed secret; undefined for anything else. */
export function intentIdOfSessionSecret(secret: string): string | undefined {
  return SESSION_SECRET_PATTERN.exec(secret)?.[1];
}

/** Whole-secret comparison in constant time (for equal lengths; lengths are not secret). */
export function sameSessionSecret(given: string, stored: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
