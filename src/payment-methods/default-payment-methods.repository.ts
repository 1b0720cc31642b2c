import type { Knex } from 'knex';
import { runRecording, statementRecordingEvent } from '../change-log/record-events';
import type { WriteOrigin } from '../change-log/write-context';
import { preparedStatement, runPrepared } from '../platform/db/prepared-statement';

export interface DefaultPaymentMethodRecord {
  paymentMethodId: string;
  contextName: string;
}

interface DefaultRow {
  payment_method_id: string;
  context_name: string;
}

function toRecord(row: DefaultRow): DefaultPaymentMethodRecord {
  return { paymentMethodId: row.payment_method_id, contextName: row.context_name };
}

/**
 * A default set, with its event written by the upsert's own statement: the
 * binding as the API answers it, and the card it replaced. No event when the
 * card was already the default (nothing changed).
 */
const UPSERT_DEFAULT = statementRecordingEvent('upsert_default_payment_method', {
  // The card first, then the binding: the order a card's delete takes them in (docs/decisions.md, One lock order).
  write: `card as (
     select location_id, customer_id, id from payment_methods
      where location_id = @location_id and customer_id = @customer_id and id = @payment_method_id
      for key share
   ),
   upserted as (
     insert into default_payment_methods (location_id, customer_id, context_name, payment_method_id)
     select card.location_id, card.customer_id, @context_name, card.id from card
     on conflict (location_id, customer_id, context_name)
     -- The card it replaces, from the binding as the conflict found it (the latest committed, locked now): a
     -- statement's own snapshot would miss a binding a racing first set committed meanwhile.
     do update set replaced_payment_method_id = default_payment_methods.payment_method_id,
                   payment_method_id = excluded.payment_method_id, updated_at = now()
     returning location_id, customer_id, payment_method_id, context_name, replaced_payment_method_id as previous_payment_method_id
   )`,
  event: {
    source: 'upserted',
    customerId: 'upserted.customer_id',
    object: `jsonb_build_object('paymentMethodId', upserted.payment_method_id, 'contextName', upserted.context_name)`,
    previous: `case when upserted.previous_payment_method_id is null then null
                    else jsonb_build_object('paymentMethodId', upserted.previous_payment_method_id) end`,
    where: 'upserted.previous_payment_method_id is distinct from upserted.payment_method_id',
  },
  answer: 'select payment_method_id, context_name from upserted',
});

/**
 * Makes a card the customer's default for a context, with its
 * `default_payment_method.set` event, in one statement that is safe under
 * concurrency: the insert selects the card through its owner, so a card that
 * is missing or another customer's inserts nothing (undefined), and the
 * primary key on (location, customer, context) turns concurrent sets into an
 * upsert where the last one wins, never into two bindings. The card is
 * locked first (key share: sets of one card do not wait for each other, a
 * delete of it does), then the binding, so a concurrent set waits and its
 * event names the card the one before it set as the one it replaced (read
 * from the binding as the conflict found it, never from the statement's own
 * snapshot: two racing first sets record one `previous: null`); a card's
 * delete takes the same two in the same order (PaymentMethodsService.remove),
 * so the two never deadlock.
 */
export async function upsertDefaultPaymentMethod(
  db: Knex | Knex.Transaction,
  binding: { locationId: string; customerId: string; contextName: string; paymentMethodId: string },
  origin: WriteOrigin,
): Promise<DefaultPaymentMethodRecord | undefined> {
  const values = {
    location_id: binding.locationId,
    customer_id: binding.customerId,
    context_name: binding.contextName,
    payment_method_id: binding.paymentMethodId,
  };
  const [row] = await runRecording<DefaultRow>(db, UPSERT_DEFAULT, values, { origin, type: 'default_payment_method.set' });
  return row === undefined ? undefined : toRecord(row);
}

const DELETE_DEFAULTS_OF_CARD = preparedStatement(
  'delete_defaults_of_card',
  `delete from default_payment_methods where location_id = ? and customer_id = ? and payment_method_id = ?
   returning payment_method_id, context_name`,
);

const LOCK_DEFAULTS_OF_CUSTOMER = preparedStatement(
  'lock_defaults_of_customer',
  'select context_name from default_payment_methods where location_id = ? and customer_id = ? order by context_name for update',
);

/**
 * Removes the defaults bound to a card (after the card is locked, before it
 * goes), answering them. Every binding of the customer is locked first, in
 * context order: two deletes of the customer's cards then take the bindings
 * one after the other, where each deleting only its card's could meet the
 * other halfway, a set-default having moved a binding from one card to the
 * other between their two reads (docs/decisions.md, One lock order). The
 * delete then reads the bindings as they are once locked.
 */
export async function deleteDefaultsOfCard(
  trx: Knex.Transaction,
  locationId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<DefaultPaymentMethodRecord[]> {
  await runPrepared(trx, LOCK_DEFAULTS_OF_CUSTOMER, [locationId, customerId]);
  return (await runPrepared<DefaultRow>(trx, DELETE_DEFAULTS_OF_CARD, [locationId, customerId, paymentMethodId])).map(toRecord);
}

const CONTEXT_DEFAULT = preparedStatement(
  'default_payment_method_of_context',
  `select d.payment_method_id, d.context_name
     from customers c
     left join default_payment_methods d
       on d.location_id = c.location_id and d.customer_id = c.id and d.context_name = ?
    where c.location_id = ? and c.id = ?`,
);

/**
 * The default for a context, in one round trip that tells the three outcomes
 * apart: the customer does not exist, it has no default there (null), or the binding.
 */
export async function findDefaultPaymentMethod(
  db: Knex | Knex.Transaction,
  locationId: string,
  customerId: string,
  contextName: string,
): Promise<{ binding: DefaultPaymentMethodRecord | null } | undefined> {
  // The primary key (location, customer) of customers makes this one row at most.
  const [row] = await runPrepared<DefaultRow | { payment_method_id: null }>(db, CONTEXT_DEFAULT, [contextName, locationId, customerId]);
  if (row === undefined) return undefined;
  return { binding: row.payment_method_id === null ? null : toRecord(row as DefaultRow) };
}

const DELETE_DEFAULT_OF_CONTEXT = preparedStatement(
  'delete_default_of_context',
  `delete from default_payment_methods where location_id = ? and customer_id = ? and context_name = ?
   returning payment_method_id, context_name`,
);

export async function deleteDefaultPaymentMethod(
  db: Knex | Knex.Transaction,
  locationId: string,
  customerId: string,
  contextName: string,
): Promise<DefaultPaymentMethodRecord | undefined> {
  const [row] = await runPrepared<DefaultRow>(db, DELETE_DEFAULT_OF_CONTEXT, [locationId, customerId, contextName]);
  return row === undefined ? undefined : toRecord(row);
}

const LOCK_CARDS_OF_CUSTOMER = preparedStatement(
  'lock_payment_methods_of_customer',
  'select id from payment_methods where location_id = ? and customer_id = ? order by id for update',
);
const DELETE_DEFAULTS_OF_CUSTOMER = preparedStatement(
  'delete_defaults_of_customer',
  'delete from default_payment_methods where location_id = ? and customer_id = ? returning payment_method_id, context_name',
);

/**
 * Deletes every default of the customer, answering them. Its cards are
 * locked first, in id order, as a set-default and a card's delete take a
 * card before a binding (docs/decisions.md, One lock order): the erasure
 * that runs this then deletes those cards without meeting a set-default
 * holding a binding and waiting for one of them.
 */
export async function deleteDefaultsOfCustomer(trx: Knex.Transaction, locationId: string, customerId: string): Promise<DefaultPaymentMethodRecord[]> {
  await runPrepared(trx, LOCK_CARDS_OF_CUSTOMER, [locationId, customerId]);
  return (await runPrepared<DefaultRow>(trx, DELETE_DEFAULTS_OF_CUSTOMER, [locationId, customerId])).map(toRecord);
}
