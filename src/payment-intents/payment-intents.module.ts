import { defineModule } from '../api/module';
import { paymentIntentsOperations } from './payment-intents.operations';
import { PaymentIntentsService } from './payment-intents.service';

/** Often enough that an intent expires within a minute of its deadline, a skipped turn or two included. */
export const INTENT_EXPIRY_SWEEP_MS = 15_000;

/** The payment intent as a record: create, read, list, update, and its expiry. */
export const paymentIntentsModule = defineModule({
  key: 'paymentIntents',
  folder: 'payment-intents',
  layer: 'feature',
  reaches: ['customers', 'payment-methods', 'mandates', 'settlement'],
  tables: ['payment_intents', 'former_intent_customers'],
  crossings: [
    {
      table: 'customers',
      why: "An intent's customer is checked in the insert's own statement: a create naming another location's or no customer inserts nothing.",
    },
    { table: 'payment_methods', why: 'A confirm marks the card it charged used (last_used_at) in the move that records the payment.' },
  ],
  build: ({ settings }) =>
    new PaymentIntentsService({
      currencies: settings.paymentCurrencies,
      sessionSecretTtlMs: settings.sessionSecretTtlSeconds * 1000,
      expiryHours: settings.intentExpiryHours,
    }),
  operations: paymentIntentsOperations,
  timedRules: (paymentIntents) => [
    {
      what: 'unpaid payment intents expired',
      everyMs: INTENT_EXPIRY_SWEEP_MS,
      atStart: true,
      run: (db, locationId) => paymentIntents.expireDue(db, locationId),
    },
  ],
});
