import { v5 as uuidv5 } from 'uuid';

/** The namespace of batch ids (a fixed, random UUID): ids of other namespaces never collide with them. */
const BATCH_NAMESPACE = '6f1f5b7e-3c2a-4d8e-9b61-2f0c7a4e8d15';

/**
 * A batch's id, made of what it is (its location, business date and
 * currency): the same while it is OPEN (no row yet, its lines waiting) and
 * once its close has stored it, on every replica.
 */
export function batchIdOf(locationId: string, businessDate: string, currency: string): string {
  return uuidv5(`${locationId}\n${businessDate}\n${currency}`, BATCH_NAMESPACE);
}
