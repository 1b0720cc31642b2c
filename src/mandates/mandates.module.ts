import { defineModule } from '../api/module';
import { mandatesOperations } from './mandates.operations';
import { MandatesService } from './mandates.service';

/** A payor's recorded consent to be charged later on a saved card. */
export const mandatesModule = defineModule({
  key: 'mandates',
  folder: 'mandates',
  layer: 'feature',
  reaches: ['customers', 'payment-methods'],
  build: () => new MandatesService(),
  operations: mandatesOperations,
});
