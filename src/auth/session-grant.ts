/**
 * What a Platform-Session-Secret grants: the browser side of a hosted checkout
 * may read one intent, and the cards and defaults of that intent's customer.
 * The header, the secret's shape and the grant live here, with the other
 * credentials; making and checking secrets belongs to payment intents
 * (payment-intents/session-secret.ts).
 */
export const SESSION_SECRET_HEADER = 'Platform-Session-Secret';

/** `PI_<intent id>_SECRET_<random, base64url>`: the intent id lets a check find its intent without a scan. */
export const SESSION_SECRET_PATTERN = /^PI_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_SECRET_[A-Za-z0-9_-]{22,64}$/;
/** The longest string SESSION_SECRET_PATTERN matches: `PI_`, a UUID, `_SECRET_` and 64 characters. */
export const SESSION_SECRET_MAX_LENGTH = 3 + 36 + 8 + 64;

export interface SessionGrant {
  intentId: string;
  /** Null for an intent made without a customer: it grants no customer read. */
  customerId: string | null;
}

/** The grant of a live session secret at a location; undefined for any secret that is not live there. */
export type SessionGrantLookup = (locationId: string, secret: string) => Promise<SessionGrant | undefined>;
