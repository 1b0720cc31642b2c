import type { Knex } from 'knex';
import {
  dueAuthorizations as dueAuthorizationRows,
  eraseIntentsOfCustomer as eraseIntentRows,
  findPaymentIntent as findPaymentIntentRow,
  lockPaymentIntent as lockPaymentIntentRow,
  stuckInProcessing as stuckInProcessingRows,
  type PaymentIntentRecord,
} from './payment-intents.repository';

/**
 * What the payment-intents feature does for the flows above it (the
 * checkout, refunds, the erasure), by name: its storage stays inside
 * (index.ts offers these, never a repository function).
 */
export type { CancellationReason, IntentChanges, LatestPayment, PaymentIntentRecord } from './payment-intents.repository';

/** The location's intent as it stands. */
export function findPaymentIntent(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  return findPaymentIntentRow(db, locationId, id);
}

/** The location's intent, locked until the caller's transaction ends (a move reads it first, for its event's `previous`). */
export function lockPaymentIntent(trx: Knex.Transaction, locationId: string, id: string): Promise<PaymentIntentRecord | undefined> {
  return lockPaymentIntentRow(trx, locationId, id);
}

/** Authorizations past their capture window, oldest first, across locations or at one: the capture window voids them. */
export function dueAuthorizations(db: Knex, limit: number, locationId?: string): Promise<PaymentIntentRecord[]> {
  return dueAuthorizationRows(db, limit, locationId);
}

/** Intents PROCESSING for longer than `olderThanSeconds` (their process died while the processor was asked): asked about again. */
export function stuckInProcessing(db: Knex, olderThanSeconds: number, limit: number, locationId?: string): Promise<PaymentIntentRecord[]> {
  return stuckInProcessingRows(db, olderThanSeconds, limit, locationId);
}

/** An erasure's part here: every intent that is or was the customer's cut from it and stripped, the unpaid ones canceled. */
export const eraseIntentsOfCustomer: typeof eraseIntentRows = (...args) => eraseIntentRows(...args);
