import { defineModule } from '../api/module';
import { refundsOperations } from './refunds.operations';
import { RefundsService } from './refunds.service';

/** Refunds as records: read and listed here; made and settled by the refunds flow. */
export const refundsModule = defineModule({
  key: 'refunds',
  folder: 'refunds',
  layer: 'feature',
  reaches: ['payment-intents'],
  build: () => new RefundsService(),
  operations: refundsOperations,
});
