import request from 'supertest';
import {
  INTENT_OPERATIONS,
  PAYMENT_INTENT_STATUSES,
  allows,
  type IntentOperation,
  type PaymentIntentStatus,
} from '../../../src/payment-intents/payment-intent-status';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';
import { cancel, checkoutWith, confirm } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { GatedProcessor } from '../../support/gated-processor';
import { startTestApp, type TestApp } from '../../support/test-app';
import { eventually } from '../../support/webhook-receiver';

/**
 * Every (status, operation) pair of the status table in code
 * (payment-intent-status.ts), through HTTP: an intent is brought to each
 * status the way an integrator would bring it there, then each operation is
 * called on it. Where the table allows the operation it succeeds; where it
 * does not, 409 (code 3002) names the status and nothing changes.
 */
let testApp: TestApp;
let gated: GatedProcessor;
beforeAll(async () => {
  testApp = await startTestApp({
    processor: (db) => {
      gated = new GatedProcessor(new SandboxProcessor(db.knex, { latencyMs: 0 }));
      return gated;
    },
  });
});
afterAll(() => testApp.close());

const location = newLocation();

const read = async (id: string) => (await request(testApp.app).get(`/v1/payment-intents/${id}`).set(testApp.as(location)).expect(200)).body;

/** An intent in `status`, and what is left to do once the test is over (a held confirm to let go). */
async function intentIn(status: PaymentIntentStatus): Promise<{ id: string; cardId: string; settle: () => Promise<unknown> }> {
  const { intent, cardId } = await checkoutWith(testApp, location, { captureMethod: status === 'SUCCEEDED' ? 'AUTOMATIC' : 'MANUAL' });
  const done = { id: intent.id, cardId, settle: async () => undefined };
  const attach = () => request(testApp.app).post(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).send({ paymentMethodId: cardId }).expect(200);
  switch (status) {
    case 'REQUIRES_PAYMENT_METHOD':
      return done;
    case 'REQUIRES_CONFIRMATION':
      await attach();
      return done;
    case 'PROCESSING': {
      gated.hold();
      const held = confirm(testApp, location, intent.id, { paymentMethodId: cardId }).then((response) => response);
      await eventually(async () => (await read(intent.id)).status === 'PROCESSING', 10_000, 'the confirm to commit PROCESSING');
      return { ...done, settle: () => (gated.release(), held) };
    }
    case 'REQUIRES_CAPTURE':
    case 'SUCCEEDED':
      await confirm(testApp, location, intent.id, { paymentMethodId: cardId }).expect(200, new RegExp(status));
      return done;
    case 'CANCELED':
      await cancel(testApp, location, intent.id).expect(200);
      return done;
  }
}

const CALLS: Record<IntentOperation, (id: string, cardId: string) => request.Test> = {
  update: (id) => request(testApp.app).post(`/v1/payment-intents/${id}`).set(testApp.as(location)).send({ email: 'ada@example.com' }),
  confirm: (id, cardId) => confirm(testApp, location, id, { paymentMethodId: cardId }),
  capture: (id) => request(testApp.app).post(`/v1/payment-intents/${id}/capture`).set(testApp.as(location)).send({}),
  cancel: (id) => cancel(testApp, location, id),
  refund: (id) => request(testApp.app).post(`/v1/payment-intents/${id}/refunds`).set(testApp.as(location)).send({ amount: 1 }),
};

/** What an allowed operation answers: a refund is a new resource. */
const ALLOWED_STATUS: Record<IntentOperation, number> = { update: 200, confirm: 200, capture: 200, cancel: 200, refund: 201 };

const PAIRS = PAYMENT_INTENT_STATUSES.flatMap((status) => INTENT_OPERATIONS.map((operation) => ({ status, operation, allowed: allows(operation, status) })));

it('covers every status and every operation, and each status allows at least one of them unless it is final', () => {
  expect(PAIRS).toHaveLength(PAYMENT_INTENT_STATUSES.length * INTENT_OPERATIONS.length);
  expect(
    PAIRS.filter(({ allowed }) => allowed)
      .map(({ status, operation }) => `${operation} in ${status}`)
      .sort(),
  ).toEqual(
    [
      'update in REQUIRES_PAYMENT_METHOD',
      'update in REQUIRES_CONFIRMATION',
      'confirm in REQUIRES_PAYMENT_METHOD',
      'confirm in REQUIRES_CONFIRMATION',
      'capture in REQUIRES_CAPTURE',
      'cancel in REQUIRES_PAYMENT_METHOD',
      'cancel in REQUIRES_CONFIRMATION',
      'cancel in REQUIRES_CAPTURE',
      'refund in SUCCEEDED',
    ].sort(),
  );
});

describe.each(PAIRS)('$operation in $status', ({ status, operation, allowed }) => {
  it(allowed ? `is allowed: ${ALLOWED_STATUS[operation]}` : 'is refused: 409 naming the status, changing nothing', async () => {
    const intent = await intentIn(status);
    try {
      const before = await read(intent.id);
      expect(before.status).toBe(status);
      const response = await CALLS[operation](intent.id, intent.cardId);
      if (allowed) {
        expect(response.status).toBe(ALLOWED_STATUS[operation]);
      } else {
        expect(response.status).toBe(409);
        expect(response.body).toMatchObject({ status: 409, code: 3002, messageKey: 'PAYMENT_INTENT_STATUS_CONFLICT' });
        expect(response.body.message).toContain(`is ${status} and cannot be`);
        expect(await read(intent.id)).toEqual(before);
      }
    } finally {
      await intent.settle();
    }
  });
});
