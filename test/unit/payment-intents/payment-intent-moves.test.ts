import type { Knex } from 'knex';
import { move, tableAllows } from '../../../src/payment-intents/payment-intent-moves';
import { PAYMENT_INTENT_MOVES, PAYMENT_INTENT_STATUSES, INTENT_OPERATIONS, statusesAllowing } from '../../../src/payment-intents/payment-intent-status';
import type { PaymentIntentRecord } from '../../../src/payment-intents/payment-intents.repository';

/** move() is the one way an intent changes: it makes only the steps the status table has. */
describe('move()', () => {
  it('allows every move of the table, by its cause, from each of its statuses', () => {
    for (const entry of PAYMENT_INTENT_MOVES) {
      for (const from of entry.from) expect(tableAllows(entry.by, from, entry.to)).toBe(true);
    }
  });

  it('allows a change in place only where the operation may act, and never for the processor or a sweep', () => {
    for (const status of PAYMENT_INTENT_STATUSES) {
      for (const operation of INTENT_OPERATIONS) expect(tableAllows(operation, status, status)).toBe(statusesAllowing(operation).includes(status));
      expect(tableAllows('processor', status, status)).toBe(false);
      expect(tableAllows('capture window', status, status)).toBe(false);
    }
  });

  it('refuses a step the table lacks before it touches the database', () => {
    const untouchable = new Proxy(
      {},
      {
        get: () => {
          throw new Error('the database was used');
        },
      },
    ) as unknown as Knex;
    const intent = { locationId: 'store-1', id: 'pi', status: 'REQUIRES_PAYMENT_METHOD', paymentAttempts: 0 } as PaymentIntentRecord;
    const write = { db: untouchable, locationId: 'store-1', origin: { requestId: null, clientId: null, idempotencyKey: null } };
    expect(() => move(write, intent, { by: 'processor', changes: { status: 'SUCCEEDED' }, event: 'payment_intent.succeeded' })).toThrow(
      'the status table has no move by processor from REQUIRES_PAYMENT_METHOD to SUCCEEDED',
    );
    expect(() => move(write, { ...intent, status: 'SUCCEEDED' }, { by: 'cancel', changes: { status: 'CANCELED' }, event: 'payment_intent.canceled' })).toThrow(
      'the status table has no move by cancel from SUCCEEDED to CANCELED',
    );
  });
});
