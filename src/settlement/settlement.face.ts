import type { Knex } from 'knex';
import { disputeRulesInForce as readDisputeRules } from './location-settings.repository';
import type { DisputeRules } from './settlement.schemas';

/**
 * What the settlement feature does for the features above it besides the
 * ledger lines they write (disputes counting their deadlines), by name: its
 * storage stays inside (index.ts offers these, never a repository function).
 */

/** The location's dispute rules in force now, on its clock. */
export function disputeRulesInForce(db: Knex, locationId: string): Promise<DisputeRules> {
  return readDisputeRules(db, locationId);
}
