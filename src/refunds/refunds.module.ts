import { defineModule } from '../api/module';
import { refundsOperations } from './refunds.operations';
import { RefundsService } from './refunds.service';

/** Refunds as records: read and listed here; made and settled by the refunds flow. */
export const refundsModule = defineModule({
  key: 'refunds',
  folder: 'refunds',
  layer: 'feature',
  reaches: ['payment-intents'],
  tables: ['refunds'],
  crossings: [
    {
      table: 'payment_intents',
      why: "A refund's amount is taken from its intent's refundable amount, and a failed one given back, in the statement that makes or settles the refund: refunded never passes captured, whatever races.",
    },
  ],
  build: () => new RefundsService(),
  operations: refundsOperations,
});
