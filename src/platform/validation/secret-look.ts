import { containsCardNumber } from './card-number';

/** A payment intent's session secret is `PI_<id>_SECRET_<random>`: anything of that look is treated as one. */
const SESSION_SECRET_LOOK = /PI_.*_SECRET_/i;
/** A JSON Web Token starts with a base64url JSON header (`eyJ`) followed by a dot. */
const JWT_LOOK = /eyJ[A-Za-z0-9_-]*\./;
/** A client secret is 32 random bytes in base64url (client-secret.ts): exactly 43 characters of that alphabet. */
const CLIENT_SECRET_LOOK = /^[A-Za-z0-9_-]{43}$/;

/**
 * Whether a value a caller sent where an identifier belongs could be a
 * secret: a card number, a session secret, a JSON Web Token or a client
 * secret. Such a value is never echoed or logged.
 */
export function looksLikeSecret(value: string): boolean {
  return containsCardNumber(value) || SESSION_SECRET_LOOK.test(value) || JWT_LOOK.test(value) || CLIENT_SECRET_LOOK.test(value);
}
