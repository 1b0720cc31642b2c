import { listEvents } from '../../../src/change-log/event-rows';
import { listCustomerPaymentMethods } from '../../../src/payment-methods/payment-methods.repository';
import { countedSince, indexScans } from '../../support/rows-read';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * Two reads that descend an index once, whatever the customer holds
 * (docs/performance.md, Growth): a customer's cards read the customer's
 * defaults in one range, not once per card; a customer's history without a
 * type reads the customer's events in id order, not once per event type.
 * Counted by PostgreSQL's own index-scan counters, on one connection.
 */
const LOCATION = 'descents-location';
const CUSTOMER = '0190a000-0000-7000-8000-000000000001';
const CARDS = 3;

let db: TestDatabase;
beforeAll(async () => {
  db = await openTestDatabase({ poolMax: 1 });
  await db.knex.raw('insert into customers (location_id, id) values (?, ?)', [LOCATION, CUSTOMER]);
  await db.knex.raw(
    `insert into payment_methods (location_id, id, customer_id, type, card_brand, last_four, exp_month, exp_year, fingerprint)
     select ?, gen_random_uuid(), ?, 'CARD', 'VISA', '4242', '12', '2030', 'fp-' || n from generate_series(1, ?) n`,
    [LOCATION, CUSTOMER, CARDS],
  );
  await db.knex.raw(
    `insert into default_payment_methods (location_id, customer_id, context_name, payment_method_id)
     select location_id, customer_id, 'context-' || row_number() over (order by id), id
       from payment_methods where location_id = ? and customer_id = ? order by id limit 2`,
    [LOCATION, CUSTOMER],
  );
  await db.knex.raw(
    `insert into events (location_id, id, type, created_at, customer_id, data)
     select ?, gen_random_uuid(), 'customer.updated', now(), ?, '{"object": {}, "previous": null}' from generate_series(1, 5)`,
    [LOCATION, CUSTOMER],
  );
});
afterAll(async () => {
  await db.close();
});

it("reads a customer's defaults once for all their cards, defaults first", async () => {
  const before = await indexScans(db.knex, ['default_payment_methods']);
  const cards = await listCustomerPaymentMethods(db.knex, LOCATION, CUSTOMER);
  const scans = countedSince(before, await indexScans(db.knex, ['default_payment_methods']));

  expect(cards).toHaveLength(CARDS);
  const { rows } = await db.knex.raw<{ rows: Array<{ id: string }> }>('select payment_method_id as id from default_payment_methods where customer_id = ?', [
    CUSTOMER,
  ]);
  expect(new Set(cards?.slice(0, 2).map(({ id }) => id))).toEqual(new Set(rows.map(({ id }) => id)));
  expect(scans.default_payment_methods).toBe(1);
});

it("reads a customer's history without a type in one index descent", async () => {
  const before = await indexScans(db.knex, ['events']);
  const page = await listEvents(db.knex, LOCATION, { customerId: CUSTOMER, limit: 10 });
  const scans = countedSince(before, await indexScans(db.knex, ['events']));

  expect(page.events).toHaveLength(5);
  expect(scans.events).toBe(1);
});
