import { hash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { Knex } from 'knex';
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { postgresRateLimiter } from '../platform/rate-limit/postgres-rate-limiter';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';

export interface LoginThrottleSettings {
  /** Failed logins of one client id from one address per window. */
  maxFailures: number;
  /** Failed logins from one address, whatever client ids they name, per window. */
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

/** rate-limiter-flexible stores a key as `<prefix>:<key>`; the release command deletes by this prefix. */
const CLIENT_ADDRESS_PREFIX = 'login';
const ADDRESS_PREFIX = 'login-address';

/** Client ids are up to 255 characters, like the store's key: hashed, so that the key fits with the address. */
function clientKeyPart(clientId: string): string {
  return hash('sha256', clientId, 'base64url');
}

/**
 * The part of an address one party controls: a whole IPv4 address, or an
 * IPv6 /64 (one host is usually given a whole /64, and could otherwise
 * change address for every guess).
 */
export function addressKeyPart(address: string): string {
  if (!isIPv6(address) || address.includes('.')) return address.replace(/^::ffff:/i, '');
  const [head = '', tail = ''] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups] : headGroups;
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

function secondsUntil(refusal: RateLimiterRes): number {
  return Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
}

/**
 * Slows down online guessing of client secrets, counted in PostgreSQL so that
 * spreading guesses over replicas gains nothing.
 *
 * Every attempt is counted before its secret is checked, in one atomic step,
 * so however many guesses arrive at once, at most `maxFailures` of them are
 * ever evaluated for one client id from one address per window (and at most
 * `maxFailuresPerAddress` from one address across client ids). A correct
 * login gives its count back and clears that address's failures for the
 * client. Counting by client id and address means a stranger's guesses lock
 * out only the stranger: the real client, logging in from its own address,
 * is not affected. When the database cannot be reached, logins fail with 503
 * rather than go uncounted.
 */
export class LoginThrottle {
  private readonly perClientAndAddress: RateLimiterAbstract;
  private readonly perAddress: RateLimiterAbstract;

  constructor(db: Knex, settings: LoginThrottleSettings) {
    const durationSeconds = settings.windowSeconds;
    this.perClientAndAddress = postgresRateLimiter(db, { keyPrefix: CLIENT_ADDRESS_PREFIX, points: settings.maxFailures, durationSeconds });
    this.perAddress = postgresRateLimiter(db, { keyPrefix: ADDRESS_PREFIX, points: settings.maxFailuresPerAddress, durationSeconds });
  }

  /** Counts an attempt about to be evaluated. Answers 0 when it may be, else the seconds until one may. */
  async admit(clientId: string, address: string): Promise<number> {
    const addressKey = addressKeyPart(address);
    const refusedForAddress = await refusal(this.perAddress.consume(addressKey));
    if (refusedForAddress !== undefined) return secondsUntil(refusedForAddress);
    const refused = await refusal(this.perClientAndAddress.consume(`${clientKeyPart(clientId)}:${addressKey}`));
    if (refused === undefined) return 0;
    // Not evaluated, so not one of the address's failures.
    await this.perAddress.reward(addressKey, 1);
    return secondsUntil(refused);
  }

  /** The attempt was the client's own: its count goes back, and the address's earlier failures for the client go. */
  async succeeded(clientId: string, address: string): Promise<void> {
    const addressKey = addressKeyPart(address);
    await Promise.all([this.perClientAndAddress.delete(`${clientKeyPart(clientId)}:${addressKey}`), this.perAddress.reward(addressKey, 1)]);
  }
}

/** The limiter's refusal, or undefined when the point was granted. */
async function refusal(consumed: Promise<RateLimiterRes>): Promise<RateLimiterRes | undefined> {
  try {
    await consumed;
    return undefined;
  } catch (error) {
    // Rejected with the limiter's state once the points are spent; anything else is a fault.
    if (error instanceof RateLimiterRes) return error;
    throw error;
  }
}

// left() rather than LIKE: base64url's `_` is a LIKE wildcard.
const RELEASE_LOGIN_COUNTS = preparedStatement('release_login_counts', 'delete from rate_limits where left(key, ?::int) = ? returning 1');

/**
 * Forgets every address's failed logins for a client at once: what an
 * operator runs (`npm run login:release`) for a client locked out of its own
 * address, rather than wait for the window to end. Answers how many counts went.
 */
export async function releaseLoginThrottle(db: Knex, clientId: string): Promise<number> {
  const prefix = `${CLIENT_ADDRESS_PREFIX}:${clientKeyPart(clientId)}:`;
  return (await runPrepared(db, RELEASE_LOGIN_COUNTS, [prefix.length, prefix])).length;
}
