import { Client } from 'pg';
import request from 'supertest';
import type { PaymentMethodData } from '../../../src/payment-methods/payment-methods.schemas';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { migratedServerDatabase, type MigratedServerDatabase } from '../../support/process/migrated-server-database';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Setting a default and deleting a card take their locks in one order: the
 * customer's defaults, then the card. Before, a set-default held the
 * binding it updated and waited for the card at its foreign-key check while
 * a delete held the card and waited for that binding in its cascade:
 * PostgreSQL found 19 deadlocks in 20 rounds of fifty set-defaults racing ten
 * deletes (answered 409, so nothing broke, but each was a wasted request).
 * Counted from pg_stat_database.deadlocks of a database of the test's own,
 * on the server (PGlite has one connection and cannot deadlock).
 */
let database: MigratedServerDatabase;
let t: TestApp;
beforeAll(async () => {
  database = await migratedServerDatabase({ poolMax: 40, statementTimeoutMs: 10_000 });
  // The sandbox clocks remembered as in production, for longer than a round: the racing requests reach their
  // handlers as they arrive. With the tests' 10 ms they all waited on one read of the clocks and left it together,
  // the deletes a turn ahead of the sets (which still read their bodies), and no set ever won a race.
  t = await startTestApp({
    database: { knex: database.knex, kind: database.kind, close: () => database.close() },
    sandboxClockCacheMs: 60_000,
  });
}, 60_000);
afterAll(() => t?.close());

/** A card of its own (a card with the same fingerprint would be the same card). */
function cardEndingIn(lastFour: number): Record<string, unknown> {
  return cardInput({ card: { type: 'visa', lastFour: String(lastFour), expiry: { month: '3', year: String(new Date().getUTCFullYear() + 2) } } });
}

/**
 * The database's deadlocks as PostgreSQL counted them. A backend reports its
 * counts when it ends (or idles a while), so the pool is closed first and a
 * connection of its own reads them.
 */
async function deadlocksAfterClosingThePool(): Promise<number> {
  await database.knex.destroy();
  const client = new Client({ connectionString: database.url });
  await client.connect();
  try {
    for (;;) {
      const { rows } = await client.query<{ deadlocks: string; backends: string }>(
        `select deadlocks, (select count(*) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()) as backends
           from pg_stat_database where datname = current_database()`,
      );
      // Every other backend has ended, and so reported.
      if (Number(rows[0]?.backends) === 0) return Number(rows[0]?.deadlocks);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
}

it('fifty set-defaults racing ten card deletes, twenty rounds: no deadlock, every delete done, every set 200 or 404', async () => {
  const setAnswers = new Map<string, number>();
  for (let round = 0; round < 20; round += 1) {
    const location = newLocation();
    const customer = await createCustomer(t, location);
    const cards: PaymentMethodData[] = [];
    for (let index = 0; index < 10; index += 1) cards.push(await saveCard(t, location, customer.id, cardEndingIn(1000 + index)));
    const sets = Array.from({ length: 50 }, (_, index) =>
      request(t.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set({ ...t.as(location), 'Idempotency-Key': `set-${round}-${index}` })
        .send({ paymentMethodId: cards[(index * 7) % 10]!.id, contextName: `context-${index % 4}` }),
    );
    // Keyed, so that each request's locks are held until its answer is stored (the race the attack found).
    const deletes = cards.map((card) =>
      request(t.app)
        .delete(`/v1/customers/${customer.id}/payment-methods/${card.id}`)
        .set({ ...t.as(location), 'Idempotency-Key': `delete-${round}-${card.id}` }),
    );
    const answers = await Promise.all([...sets, ...deletes]);
    for (const response of answers.slice(0, sets.length)) {
      const key = `${response.status} ${response.body?.messageKey ?? ''}`.trim();
      setAnswers.set(key, (setAnswers.get(key) ?? 0) + 1);
    }
    // Every delete goes through: none is chosen as a deadlock's victim.
    expect(answers.slice(sets.length).map((response) => response.status)).toEqual(deletes.map(() => 204));
    const left = await database.knex('default_payment_methods').where({ location_id: location, customer_id: customer.id }).count({ n: '*' });
    expect(Number(left[0]?.n)).toBe(0);
  }
  // A set either wins before the delete (200) or finds its card gone (404): never a 409 from a lost race.
  expect([...setAnswers.keys()].sort()).toEqual(['200', '404 PAYMENT_METHOD_NOT_FOUND']);
}, 300_000);

it('thirty set-defaults racing the customer’s erasure, twenty rounds: the erasure goes through and leaves no default', async () => {
  for (let round = 0; round < 20; round += 1) {
    const location = newLocation();
    const customer = await createCustomer(t, location);
    const cards: PaymentMethodData[] = [];
    for (let index = 0; index < 5; index += 1) cards.push(await saveCard(t, location, customer.id, cardEndingIn(2000 + index)));
    const sets = Array.from({ length: 30 }, (_, index) =>
      request(t.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set({ ...t.as(location), 'Idempotency-Key': `erase-set-${round}-${index}` })
        .send({ paymentMethodId: cards[(index * 3) % 5]!.id, contextName: `context-${index % 4}` }),
    );
    const erasure = request(t.app).delete(`/v1/customers/${customer.id}`).set(t.as(location));
    const answers = await Promise.all([...sets, erasure]);
    expect(answers.at(-1)?.status).toBe(200);
    for (const response of answers.slice(0, -1)) expect([200, 404]).toContain(response.status);
    expect(await database.knex('default_payment_methods').where({ location_id: location, customer_id: customer.id }).first()).toBeUndefined();
  }
}, 300_000);

it('PostgreSQL counted no deadlock in either race', async () => {
  // A fresh database: every deadlock it ever had was in the races above.
  expect(await deadlocksAfterClosingThePool()).toBe(0);
});
