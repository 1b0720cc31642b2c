import type { Knex } from 'knex';
import type { SetupIntentRecord } from './setup-intent-record';
import { statusesMovedBy, type SetupIntentStatus } from './setup-intent-status';
import {
  eraseSetupIntentsOfCustomer,
  findSetupIntent as findSetupIntentRow,
  lockSetupIntent as lockSetupIntentRow,
  setupsStuckInProcessing,
} from './setup-intents.repository';

/**
 * What the setup-intents feature does for the flows above it (the card
 * setup, the erasure), by name: its storage stays inside (index.ts offers
 * these, never a repository function).
 */

/** The location's setup intent as it stands. */
export function findSetupIntent(db: Knex, locationId: string, id: string): Promise<SetupIntentRecord | undefined> {
  return findSetupIntentRow(db, locationId, id);
}

/** The location's setup intent, locked until the caller's transaction ends: every move of one is made under it. */
export function lockSetupIntent(trx: Knex.Transaction, locationId: string, id: string): Promise<SetupIntentRecord | undefined> {
  return lockSetupIntentRow(trx, locationId, id);
}

/** Setup intents PROCESSING longer than `olderThanSeconds` (their process died while the processor was asked): asked about again. */
export function setupsLeftProcessing(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<SetupIntentRecord[]> {
  return setupsStuckInProcessing(db, olderThanSeconds, limit, locationId);
}

/**
 * An erasure's part here, in its transaction: every setup intent of the
 * customer cut from them and its consent's personal fields cleared; those
 * not finished are canceled (the statuses the status table's erasure moves).
 */
export function eraseSetupIntentsOf(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
): Promise<Array<{ intent: SetupIntentRecord; previousStatus: SetupIntentStatus }>> {
  return eraseSetupIntentsOfCustomer(trx, locationId, customerId, statusesMovedBy('erasure', 'CANCELED'));
}
