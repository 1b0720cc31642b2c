import type { Knex } from 'knex';
import { preparedStatement, runPrepared, textArrayLiteral } from '../platform/db/prepared-statement';

/**
 * The personal fields an event may carry, by the resource it is about (the
 * type's part before the dot, resourceOf): a customer's own reference and
 * description, and an intent's e-mail. Ids are kept: they are pseudonymous,
 * and the history stays readable (who changed what, when) without saying
 * whom it was about. Identifiers only: they are written into the SQL below.
 */
const PERSONAL_FIELDS: Record<string, readonly string[]> = {
  customer: ['externalReferenceId', 'description'],
  payment_intent: ['email'],
};

const RESOURCE = `split_part(type, '.', 1)`;
const FIELDS_OF_EVENT = `case ${RESOURCE} ${Object.entries(PERSONAL_FIELDS)
  .map(([resource, fields]) => `when '${resource}' then array[${fields.map((field) => `'${field}'`).join(', ')}]`)
  .join(' ')} end`;

/** `value` with each of the event's personal fields it holds set to null; anything but an object as it is. */
function scrubbed(value: string): string {
  return `case when jsonb_typeof(${value}) = 'object'
    then ${value} || coalesce((select jsonb_object_agg(field, 'null'::jsonb) from unnest(${FIELDS_OF_EVENT}) as field where ${value} -> field is not null), '{}'::jsonb)
    else ${value} end`;
}

const ERASE_PERSONAL_DATA = preparedStatement(
  'erase_personal_data_from_events',
  `with targets as (
     select id from events
      where location_id = ? and customer_id = ? and ${RESOURCE} in (${Object.keys(PERSONAL_FIELDS)
        .map((resource) => `'${resource}'`)
        .join(', ')})
     union
     select id from events where location_id = ? and type like 'payment_intent.%' and data #>> '{object,id}' = any(?::text[])
   )
   update events set data = data || jsonb_build_object('object', ${scrubbed(`data->'object'`)}, 'previous', ${scrubbed(`data->'previous'`)})
     from targets
    where events.location_id = ? and events.id = targets.id`,
);

/**
 * For an erasure: nulls the personal fields in the `object` and `previous` of
 * every event of the customer, and of every event of the intents that are or
 * were theirs whatever customer it was recorded with (an intent's events
 * before it was attached to them, or after it was detached), in the
 * erasure's transaction, in one statement (however long the history).
 */
export async function erasePersonalDataFromEvents(trx: Knex.Transaction, locationId: string, customerId: string, intentIds: readonly string[]): Promise<void> {
  await runPrepared(trx, ERASE_PERSONAL_DATA, [locationId, customerId, locationId, textArrayLiteral(intentIds), locationId]);
}
