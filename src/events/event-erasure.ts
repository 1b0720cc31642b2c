import type { Knex } from 'knex';
import { resourceOf } from './event-types';

/**
 * The personal fields an event may carry, by the resource it is about: a
 * customer's own reference and description, and an intent's e-mail. Ids are
 * kept: they are pseudonymous, and the history stays readable (who changed
 * what, when) without saying whom it was about.
 */
const PERSONAL_FIELDS: Record<string, readonly string[]> = {
  customer: ['externalReferenceId', 'description'],
  payment_intent: ['email'],
};

function scrubbed(value: unknown, fields: readonly string[]): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, fields.includes(key) ? null : field]));
}

/**
 * For an erasure: nulls the personal fields in the `object` and `previous` of
 * every event of the customer, in the erasure's transaction.
 */
export async function erasePersonalDataFromEvents(trx: Knex.Transaction, locationId: string, customerId: string): Promise<void> {
  const events = (await trx('events').select('id', 'type', 'data').where({ location_id: locationId, customer_id: customerId })) as Array<{
    id: string;
    type: string;
    data: { object: unknown; previous: unknown };
  }>;
  for (const event of events) {
    const fields = PERSONAL_FIELDS[resourceOf(event.type)];
    if (fields === undefined) continue;
    const data = { object: scrubbed(event.data.object, fields), previous: scrubbed(event.data.previous, fields) };
    await trx('events').where({ location_id: locationId, id: event.id }).update({ data: JSON.stringify(data) });
  }
}
