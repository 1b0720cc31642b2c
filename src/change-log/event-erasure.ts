import type { Knex } from 'knex';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';

/**
 * The personal fields an event may carry, by the resource it is about (the
 * type's part before the dot, resourceOf), as paths into its object: a
 * customer's own reference and description, an intent's e-mail, and where a
 * mandate's (or a setup intent's) consent was given from. Ids are kept: they are pseudonymous,
 * and the history stays readable (who changed what, when) without saying
 * whom it was about. Identifiers only: they are written into the SQL below.
 */
const PERSONAL_FIELDS: Record<string, ReadonlyArray<readonly string[]>> = {
  customer: [['externalReferenceId'], ['description']],
  payment_intent: [['email']],
  mandate: [
    ['consent', 'ipAddress'],
    ['consent', 'userAgent'],
  ],
  setup_intent: [
    ['consent', 'ipAddress'],
    ['consent', 'userAgent'],
  ],
  dispute: [
    ['evidence', 'customerName'],
    ['evidence', 'customerEmail'],
  ],
};

/** Lists of documents whose `url` is personal data (a dispute's evidence): each element's `url` nulled, its type and hash kept. */
const PERSONAL_URL_LISTS: Record<string, readonly string[]> = { dispute: ['evidence', 'documents'] };

/** `value` with the `url` of each element of the list at `path` nulled, when there is such a list. */
function withoutUrls(value: string, path: readonly string[]): string {
  const list = `${value} #> '{${path.join(',')}}'`;
  return `case when jsonb_typeof(${list}) = 'array'
    then jsonb_set(${value}, '{${path.join(',')}}', (select coalesce(jsonb_agg(element || '{"url": null}'::jsonb), '[]'::jsonb) from jsonb_array_elements(${list}) as element), false)
    else ${value} end`;
}

const RESOURCE = `split_part(type, '.', 1)`;

/** `value` with each of the resource's personal fields it holds set to null (jsonb_set with create_missing off leaves an absent one absent). */
function withoutFields(value: string, paths: ReadonlyArray<readonly string[]>): string {
  return paths.reduce((inner, path) => `jsonb_set(${inner}, '{${path.join(',')}}', 'null'::jsonb, false)`, value);
}

/** `value` with the event's personal fields set to null; anything but an object as it is. */
function scrubbed(value: string): string {
  return `case when jsonb_typeof(${value}) = 'object'
    then case ${RESOURCE} ${Object.entries(PERSONAL_FIELDS)
      .map(([resource, paths]) => {
        const fields = withoutFields(value, paths);
        const urls = PERSONAL_URL_LISTS[resource];
        return `when '${resource}' then ${urls === undefined ? fields : withoutUrls(fields, urls)}`;
      })
      .join(' ')} else ${value} end
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
     -- An index lookup per intent (events_of_intent), whatever the location's other intents hold.
     select e.id from unnest(?::text[]) as intent(id)
       join events e on e.location_id = ? and e.type like 'payment_intent.%' and e.data #>> '{object,id}' = intent.id
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
  await runPrepared(trx, ERASE_PERSONAL_DATA, [locationId, customerId, intentIds, locationId, locationId]);
}
