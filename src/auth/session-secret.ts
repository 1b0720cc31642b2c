import { randomBytes, timingSafeEqual } from 'node:crypto';
import { SESSION_SECRET_PATTERN, type SessionSecretKind } from './session-grant';

/** 192 random bits; the spec asks for at least 128. */
const RANDOM_BYTES = 24;

/** `PI_<intent id>_SECRET_<random, base64url>` (a setup intent's: `SI_`): the intent id lets a check find its intent without a scan. */
export function newSessionSecret(intentId: string, kind: SessionSecretKind = 'PI'): string {
  return `${kind}_${intentId}_SECRET_${randomBytes(RANDOM_BYTES).toString('base64url')}`;
}

/** The intent id inside a well-formed secret of that kind; undefined for anything else. */
export function intentIdOfSessionSecret(secret: string, kind: SessionSecretKind = 'PI'): string | undefined {
  const match = SESSION_SECRET_PATTERN.exec(secret);
  return match?.[1] === kind ? match[2] : undefined;
}

/** Whole-secret comparison in constant time (for equal lengths; lengths are not secret). */
export function sameSessionSecret(given: string, stored: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(stored);
  return a.length === b.length && timingSafeEqual(a, b);
}
