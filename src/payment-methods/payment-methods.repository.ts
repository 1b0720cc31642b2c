import type { Knex } from 'knex';
import { runRecording, statementRecordingEvent } from '../change-log/record-events';
import type { WriteOrigin } from '../change-log/write-context';
import { namedStatement, preparedStatement, runNamed, runPrepared } from '../platform/db/prepared-statement';

export interface PaymentMethodRecord {
  locationId: string;
  id: string;
  customerId: string;
  type: 'CARD';
  /** The brand as the vault gave it, upper-cased. The spec's cardType is derived from it when read. */
  cardBrand: string;
  lastFour: string;
  expMonth: string;
  expYear: string;
  fingerprint: string | null;
  createdAt: Date;
  /** When an approved authorization last used it; null if none has. */
  lastUsedAt: Date | null;
}

export type NewPaymentMethod = Omit<PaymentMethodRecord, 'createdAt' | 'lastUsedAt'>;

/** A save's outcome: the card, whether it is new, and an updated card's expiry before the save. */
export interface SavedPaymentMethod {
  paymentMethod: PaymentMethodRecord;
  created: boolean;
  previousExpiry: { expMonth: string; expYear: string } | null;
}

interface PaymentMethodRow {
  location_id: string;
  id: string;
  customer_id: string;
  type: 'CARD';
  card_brand: string;
  last_four: string;
  exp_month: string;
  exp_year: string;
  fingerprint: string | null;
  created_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = [
  'location_id',
  'id',
  'customer_id',
  'type',
  'card_brand',
  'last_four',
  'exp_month',
  'exp_year',
  'fingerprint',
  'created_at',
  'last_used_at',
] as const;

function toRecord(row: PaymentMethodRow): PaymentMethodRecord {
  return {
    locationId: row.location_id,
    id: row.id,
    customerId: row.customer_id,
    type: row.type,
    cardBrand: row.card_brand,
    lastFour: row.last_four,
    expMonth: row.exp_month,
    expYear: row.exp_year,
    fingerprint: row.fingerprint,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

const LOCK_CUSTOMER_FOR_CARDS = preparedStatement('lock_customer_for_cards', 'select id from customers where location_id = ? and id = ? for update');

/**
 * Locks the customer's row until the transaction ends, so that concurrent
 * saves to one customer count its cards one after another. False when the
 * customer does not exist at the location.
 */
export async function lockCustomerForCards(trx: Knex.Transaction, locationId: string, customerId: string): Promise<boolean> {
  return (await runPrepared(trx, LOCK_CUSTOMER_FOR_CARDS, [locationId, customerId])).length > 0;
}

const UPSERT_PAYMENT_METHOD = namedStatement(
  'upsert_payment_method',
  `insert into payment_methods
       (location_id, id, customer_id, type, card_brand, last_four, exp_month, exp_year, fingerprint, created_at, updated_at)
     select c.location_id, @id, c.id, @type, @card_brand, @last_four, @exp_month, @exp_year, @fingerprint, now(), now()
       from customers c
      where c.location_id = @location_id and c.id = @customer_id
        and ((select count(*) from payment_methods pm where pm.location_id = c.location_id and pm.customer_id = c.id) < @max_cards
             or exists (select 1 from payment_methods pm
                         where pm.location_id = c.location_id and pm.customer_id = c.id and pm.fingerprint = @fingerprint))
     on conflict (location_id, customer_id, fingerprint) where fingerprint is not null
     do update set exp_month = excluded.exp_month, exp_year = excluded.exp_year, updated_at = now()
     returning ${COLUMNS.join(', ')}, (xmax = 0) as created,
       -- The statement's snapshot is from before it: these read an updated card's expiry as it was.
       (select p.exp_month from payment_methods p where p.location_id = payment_methods.location_id and p.id = payment_methods.id) as previous_exp_month,
       (select p.exp_year from payment_methods p where p.location_id = payment_methods.location_id and p.id = payment_methods.id) as previous_exp_year`,
);

/**
 * Saves a card to a customer in one statement: the insert selects from the
 * customer's own row, so an unknown customer inserts nothing (undefined comes
 * back) without a separate existence query. A card whose fingerprint the
 * customer already has is updated in place (its expiry) instead of duplicated;
 * `created` tells which happened. A new card is inserted only while the
 * customer holds fewer than `maxCards` (undefined otherwise): run it after
 * `lockCustomerForCards`, so that the count it reads is not raced.
 */
export async function upsertPaymentMethod(db: Knex | Knex.Transaction, card: NewPaymentMethod, maxCards: number): Promise<SavedPaymentMethod | undefined> {
  const [row] = await runNamed<PaymentMethodRow & { created: boolean; previous_exp_month: string | null; previous_exp_year: string | null }>(
    db,
    UPSERT_PAYMENT_METHOD,
    {
      id: card.id,
      type: card.type,
      card_brand: card.cardBrand,
      last_four: card.lastFour,
      exp_month: card.expMonth,
      exp_year: card.expYear,
      fingerprint: card.fingerprint,
      location_id: card.locationId,
      customer_id: card.customerId,
      max_cards: maxCards,
    },
  );
  if (row === undefined) return undefined;
  const previous = row.created ? null : { expMonth: row.previous_exp_month as string, expYear: row.previous_exp_year as string };
  return { paymentMethod: toRecord(row), created: row.created, previousExpiry: previous };
}

/** Exported for the bench's hand-written ceiling, which runs the same SQL (bench/ceilings/hand-written-server.ts). */
export const CUSTOMER_CARDS = preparedStatement(
  'payment_methods_of_customer',
  `select ${COLUMNS.map((column) => `pm.${column}`).join(', ')}
     from customers c
     left join payment_methods pm on pm.location_id = c.location_id and pm.customer_id = c.id
    where c.location_id = ? and c.id = ?
    order by pm.id = any (array(select d.payment_method_id from default_payment_methods d
                                 where d.location_id = ? and d.customer_id = ?)) desc,
             pm.last_used_at desc nulls last, pm.created_at, pm.id`,
);

/**
 * The customer's cards in the order a payor uses them: those that are a
 * context's default first, then by when they last paid (most recent first),
 * then the never-used, oldest first. One round trip that also tells a
 * customer with no cards (an empty list) from one that does not exist (undefined).
 * The customer's defaults are read once, by one range of their key, not
 * looked up again for each card (docs/performance.md, Growth).
 */
export async function listCustomerPaymentMethods(
  db: Knex | Knex.Transaction,
  locationId: string,
  customerId: string,
): Promise<PaymentMethodRecord[] | undefined> {
  const rows = await runPrepared<PaymentMethodRow | { id: null }>(db, CUSTOMER_CARDS, [locationId, customerId, locationId, customerId]);
  if (rows.length === 0) return undefined;
  return rows.filter((row): row is PaymentMethodRow => row.id !== null).map(toRecord);
}

const CARD_OWNER = preparedStatement('payment_method_owner', 'select customer_id from payment_methods where location_id = ? and id = ?');

export async function findPaymentMethodOwner(db: Knex | Knex.Transaction, locationId: string, paymentMethodId: string): Promise<string | undefined> {
  const [row] = await runPrepared<{ customer_id: string }>(db, CARD_OWNER, [locationId, paymentMethodId]);
  return row?.customer_id;
}

const DELETE_CARD = preparedStatement(
  'delete_payment_method',
  `delete from payment_methods where location_id = ? and customer_id = ? and id = ? returning ${COLUMNS.join(', ')}`,
);

/** Deletes a customer's card, answering it as it was (undefined when the customer has no such card). */
export async function deletePaymentMethod(
  db: Knex | Knex.Transaction,
  locationId: string,
  customerId: string,
  paymentMethodId: string,
): Promise<PaymentMethodRecord | undefined> {
  const [row] = await runPrepared<PaymentMethodRow>(db, DELETE_CARD, [locationId, customerId, paymentMethodId]);
  return row === undefined ? undefined : toRecord(row);
}

const CARD_OF_CUSTOMER = preparedStatement(
  'payment_method_of_customer',
  `select ${COLUMNS.join(', ')} from payment_methods where location_id = ? and customer_id = ? and id = ?`,
);
const CARD_OF_CUSTOMER_FOR_UPDATE = preparedStatement('payment_method_of_customer_for_update', `${CARD_OF_CUSTOMER.text} for update`);

/** The customer's card, locked until the transaction ends (an update reads it first, for its event's `previous`). */
export async function lockPaymentMethod(trx: Knex.Transaction, locationId: string, customerId: string, id: string): Promise<PaymentMethodRecord | undefined> {
  const [row] = await runPrepared<PaymentMethodRow>(trx, CARD_OF_CUSTOMER_FOR_UPDATE, [locationId, customerId, id]);
  return row === undefined ? undefined : toRecord(row);
}

const CARD_WITH_FINGERPRINT = preparedStatement(
  'payment_method_with_fingerprint',
  'select id from payment_methods where location_id = ? and customer_id = ? and fingerprint = ? limit 1',
);

/** Another card of the customer holding this fingerprint, if any. */
export async function cardWithFingerprint(
  db: Knex | Knex.Transaction,
  locationId: string,
  customerId: string,
  fingerprint: string,
): Promise<string | undefined> {
  const [row] = await runPrepared<{ id: string }>(db, CARD_WITH_FINGERPRINT, [locationId, customerId, fingerprint]);
  return row?.id;
}

/** The columns an update may change; each is set only when its `set_` flag is (an absent field stays, a null fingerprint is cleared). */
const UPDATABLE_CARD_COLUMNS = ['last_four', 'exp_month', 'exp_year', 'fingerprint'] as const;

const UPDATE_CARD = namedStatement(
  'update_payment_method',
  `update payment_methods
      set ${UPDATABLE_CARD_COLUMNS.map((column) => `${column} = case when @set_${column}::boolean then @${column}::text else ${column} end`).join(',\n          ')},
          updated_at = now()
    where location_id = @location_id and customer_id = @customer_id and id = @id
    returning ${COLUMNS.join(', ')}`,
);

export async function updatePaymentMethod(
  trx: Knex.Transaction,
  card: Pick<PaymentMethodRecord, 'locationId' | 'customerId' | 'id'>,
  changes: Partial<Pick<PaymentMethodRecord, 'lastFour' | 'expMonth' | 'expYear' | 'fingerprint'>>,
): Promise<PaymentMethodRecord> {
  const columns = { last_four: changes.lastFour, exp_month: changes.expMonth, exp_year: changes.expYear, fingerprint: changes.fingerprint };
  const values: Record<string, Knex.RawBinding> = { location_id: card.locationId, customer_id: card.customerId, id: card.id };
  for (const column of UPDATABLE_CARD_COLUMNS) {
    values[`set_${column}`] = columns[column] !== undefined;
    values[column] = columns[column] ?? null;
  }
  const [row] = await runNamed<PaymentMethodRow>(trx, UPDATE_CARD, values);
  if (row === undefined) throw new Error('the card to update is gone although it was locked');
  return toRecord(row);
}

/** The customer's card, read without a lock (a renewal's first step). */
export async function findPaymentMethod(db: Knex, locationId: string, customerId: string, id: string): Promise<PaymentMethodRecord | undefined> {
  const [row] = await runPrepared<PaymentMethodRow>(db, CARD_OF_CUSTOMER, [locationId, customerId, id]);
  return row === undefined ? undefined : toRecord(row);
}

const RENEW_CARD = statementRecordingEvent('renew_payment_method', {
  write: `renewed as (
     update payment_methods set last_four = @last_four, exp_month = @exp_month, exp_year = @exp_year, updated_at = now()
      where location_id = @location_id and customer_id = @customer_id and id = @id
        and last_four = @read_last_four and exp_month = @read_exp_month and exp_year = @read_exp_year
      returning ${COLUMNS.join(', ')}
   )`,
  event: { source: 'renewed', customerId: 'renewed.customer_id', where: '@answered_fields_change::boolean' },
  answer: `select ${COLUMNS.join(', ')} from renewed`,
});

/**
 * A renewal (new last four and expiry) and its event in one statement, no
 * transaction, made only if the card still has the last four and expiry it
 * was read with: the event, built from that read, is then exact; none when
 * nothing answered changes (`event.previous` undefined).
 * Undefined when the card changed or went in between.
 */
export async function renewPaymentMethod(
  db: Knex,
  current: PaymentMethodRecord,
  renewed: Pick<PaymentMethodRecord, 'lastFour' | 'expMonth' | 'expYear'>,
  event: { origin: WriteOrigin; object: object; previous: object | undefined },
): Promise<PaymentMethodRecord | undefined> {
  const values = {
    last_four: renewed.lastFour,
    exp_month: renewed.expMonth,
    exp_year: renewed.expYear,
    location_id: current.locationId,
    customer_id: current.customerId,
    id: current.id,
    read_last_four: current.lastFour,
    read_exp_month: current.expMonth,
    read_exp_year: current.expYear,
    answered_fields_change: event.previous !== undefined,
  };
  const [row] = await runRecording<PaymentMethodRow>(db, RENEW_CARD, values, {
    origin: event.origin,
    type: 'payment_method.updated',
    object: event.object,
    previous: event.previous ?? null,
  });
  return row === undefined ? undefined : toRecord(row);
}

const DELETE_CARDS_OF_CUSTOMER = preparedStatement(
  'delete_payment_methods_of_customer',
  `delete from payment_methods where location_id = ? and customer_id = ? returning ${COLUMNS.join(', ')}`,
);

/** Deletes every card of the customer (run after its defaults are gone), answering them as they were. */
export async function deleteCardsOfCustomer(trx: Knex.Transaction, locationId: string, customerId: string): Promise<PaymentMethodRecord[]> {
  return (await runPrepared<PaymentMethodRow>(trx, DELETE_CARDS_OF_CUSTOMER, [locationId, customerId])).map(toRecord);
}
