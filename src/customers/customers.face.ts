import type { Knex } from 'knex';
import { customerExists as customerRowExists, deleteCustomerLeavingItsId, isOrWasCustomer as isOrWasCustomerRow, lockCustomer } from './customers.repository';

/**
 * What the customers feature does for the features and flows above it, by
 * name: its storage stays inside (index.ts offers these, never a repository
 * function).
 */

/** Whether the location has this customer now (an erased one it has not). */
export function customerExists(db: Knex | Knex.Transaction, locationId: string, id: string): Promise<boolean> {
  return customerRowExists(db, locationId, id);
}

/** Whether `id` is, or was until erased, a customer of the location: its history stays readable, its id a list cursor. */
export function isOrWasCustomer(db: Knex, locationId: string, id: string): Promise<boolean> {
  return isOrWasCustomerRow(db, locationId, id);
}

/** An erasure's first step: the customer locked until the erasure commits; false when there is none to erase. */
export async function lockCustomerForErasure(trx: Knex.Transaction, locationId: string, id: string): Promise<boolean> {
  return (await lockCustomer(trx, locationId, id)) !== undefined;
}

/** An erasure's last step: the customer gone, its id alone kept (a list walk whose cursor it was goes on). */
export function eraseCustomerLeavingItsId(trx: Knex.Transaction, locationId: string, id: string): Promise<void> {
  return deleteCustomerLeavingItsId(trx, locationId, id);
}
