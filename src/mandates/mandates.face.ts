import type { Knex } from 'knex';
import { v7 as uuidv7 } from 'uuid';
import type { WriteContext } from '../change-log/write-context';
import type { MandateRecord } from './mandate-record';
import { activeMandatesOfCustomer, createMandate, findMandate, forgetConsentsOfCustomer, revokeMandate, type NewMandate } from './mandates.repository';

/**
 * What the mandates feature does for the features and flows above it, by
 * name: its storage stays inside (index.ts offers these, never a repository
 * function).
 */

/**
 * The mandate a charge names, of a customer that exists; in a transaction,
 * locked against a revocation until the charge commits.
 */
export function mandateForCharge(db: Knex, locationId: string, customerId: string, id: string): Promise<MandateRecord | undefined> {
  return findMandate(db, locationId, customerId, id);
}

/**
 * An erasure's part here, in its transaction: every ACTIVE mandate of the
 * customer revoked with its event, then the personal fields of every
 * consent of theirs cleared (the rest stays as the record of a consent).
 */
export async function revokeAndScrubMandatesOf(write: WriteContext & { db: Knex.Transaction }, customerId: string, revokedAt: Date): Promise<void> {
  for (const mandate of await activeMandatesOfCustomer(write.db, write.locationId, customerId)) await revokeMandate(write, mandate, revokedAt);
  await forgetConsentsOfCustomer(write.db, write.locationId, customerId);
}

/**
 * A mandate made ACTIVE from a consent recorded elsewhere (a setup intent's),
 * with its `mandate.created` event, in the caller's transaction; undefined
 * when the customer has no such card.
 */
export function makeMandate(write: WriteContext, terms: Omit<NewMandate, 'id'>, createdAt: Date): Promise<MandateRecord | undefined> {
  return createMandate(write, { id: uuidv7(), ...terms }, createdAt);
}
