import type { Knex } from 'knex';
import { scrubDisputesOfCustomer as scrubDisputeRows } from './disputes.repository';

/**
 * What the disputes feature does for the flows above it (the erasure), by
 * name: its storage stays inside (index.ts offers these, never a
 * repository function).
 */

/** An erasure's part here, in its transaction: the customer's disputes cut from them, the evidence's personal fields cleared. */
export function scrubDisputesOfCustomer(trx: Knex.Transaction, locationId: string, customerId: string): Promise<void> {
  return scrubDisputeRows(trx, locationId, customerId);
}
