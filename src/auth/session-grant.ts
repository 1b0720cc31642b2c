/**
 * What a Platform-Session-Secret grants: the browser side of a hosted checkout
 * may read one intent (a payment intent, `PI_…`, or a setup intent, `SI_…`)
 * and act on it as its operations allow, and read the cards and defaults of
 * that intent's customer. The header, the secrets' shape and the grant live
 * here, with the other credentials, and session-secret.ts makes and compares
 * them; which secret is live is its intent's feature's to say.
 */
export const SESSION_SECRET_HEADER = 'Platform-Session-Secret';

/** Whose secret it is: a payment intent's (`PI_`) or a setup intent's (`SI_`), by the prefix Toast gives each. */
export const SESSION_SECRET_KINDS = ['PI', 'SI'] as const;
export type SessionSecretKind = (typeof SESSION_SECRET_KINDS)[number];

/** `PI_<intent id>_SECRET_<random, base64url>` (or `SI_…`): the intent id lets a check find its intent without a scan. */
export const SESSION_SECRET_PATTERN = /^(PI|SI)_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_SECRET_[A-Za-z0-9_-]{22,64}$/;
/** The longest string SESSION_SECRET_PATTERN matches: `PI_`, a UUID, `_SECRET_` and 64 characters. */
export const SESSION_SECRET_MAX_LENGTH = 3 + 36 + 8 + 64;

export interface SessionGrant {
  /** The payment intent a `PI_` secret is of; null for a setup intent's. */
  intentId: string | null;
  /** The setup intent an `SI_` secret is of; null for a payment intent's. */
  setupIntentId: string | null;
  /** Null for an intent made without a customer: it grants no customer read. */
  customerId: string | null;
}

/** The grant of a live session secret at a location; undefined for any secret that is not live there. */
export type SessionGrantLookup = (locationId: string, secret: string) => Promise<SessionGrant | undefined>;
