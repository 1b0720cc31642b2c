import { defineModule } from '../api/module';
import { setupIntentsOperations } from './setup-intents.operations';
import { SetupIntentsService } from './setup-intents.service';

/** Often enough that a setup intent expires within a minute of its deadline, a skipped turn or two included. */
const SETUP_EXPIRY_SWEEP_MS = 15_000;

/** Setup intents as a record: create, read, list, cancel, and their expiry (the confirm is the card-setup flow's). */
export const setupIntentsModule = defineModule({
  key: 'setupIntents',
  folder: 'setup-intents',
  layer: 'feature',
  reaches: ['mandates', 'payment-methods'],
  tables: ['setup_intents'],
  crossings: [
    {
      table: 'customers',
      why: "A setup intent's customer is checked in the insert's own statement: one naming another location's or no customer inserts nothing.",
    },
  ],
  build: () => new SetupIntentsService(),
  operations: setupIntentsOperations,
  timedRules: (setupIntents) => [
    {
      what: 'unfinished setup intents expired',
      everyMs: SETUP_EXPIRY_SWEEP_MS,
      atStart: true,
      run: (db, locationId) => setupIntents.expireDue(db, locationId),
    },
  ],
});
