import request from 'supertest';
import { onEventsRecorded } from '../../../src/change-log/events-recorded';
import { recordEvents } from '../../../src/change-log/record-events';
import { createCustomer, saveCard } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * The signal that wakes this process's webhook dispatcher: sent once what
 * recorded an event has committed, and only when an event was recorded.
 */
let testApp: TestApp;
let signals = 0;
let unsubscribe: () => void;
beforeAll(async () => {
  testApp = await startTestApp();
  unsubscribe = onEventsRecorded(() => {
    signals += 1;
  });
});
afterAll(async () => {
  unsubscribe();
  await testApp.close();
});

const ORIGIN = { requestId: null, clientId: null, idempotencyKey: null };
const customerCreated = (locationId: string) => ({ type: 'customer.created', customerId: null, object: { locationId }, previous: null }) as const;

describe('the dispatcher is woken', () => {
  it('by a write that records an event in its own statement, and not by a get-or-create that finds the customer and records nothing', async () => {
    const location = newLocation();
    const before = signals;
    const first = await createCustomer(testApp, location, { externalReferenceId: 'wake-1' });
    expect(signals).toBe(before + 1);
    const again = await createCustomer(testApp, location, { externalReferenceId: 'wake-1' });
    expect(again.id).toBe(first.id);
    expect(signals).toBe(before + 1);
  });

  it('by a default set that changes the binding, and not by setting the card it already is', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const card = await saveCard(testApp, location, customer.id);
    const set = () =>
      request(testApp.app)
        .post(`/v1/customers/${customer.id}/payment-methods/defaults`)
        .set(testApp.as(location))
        .send({ paymentMethodId: card.id, contextName: 'web' })
        .expect(200);
    const before = signals;
    await set();
    expect(signals).toBe(before + 1);
    await set();
    expect(signals).toBe(before + 1);
  });

  it("after a transaction's commit, never before it, and not at all after a rollback", async () => {
    const location = newLocation();
    const before = signals;
    await testApp.db.knex.transaction(async (trx) => {
      await recordEvents(trx, { locationId: location, origin: ORIGIN }, [customerCreated(location)]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(signals).toBe(before);
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(signals).toBe(before + 1);

    // As every transaction of the service that does not commit ends: an error thrown inside it.
    await expect(
      testApp.db.knex.transaction(async (trx) => {
        await recordEvents(trx, { locationId: location, origin: ORIGIN }, [customerCreated(location)]);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((resolve) => setImmediate(resolve));
    expect(signals).toBe(before + 1);
    const events = await testApp.db.knex('events').where({ location_id: location }).select('id');
    expect(events).toHaveLength(1);
  });
});
