import { defineModule } from '../api/module';
import { mandatesOperations } from './mandates.operations';
import { MandatesService } from './mandates.service';

/** A payor's recorded consent to be charged later on a saved card. */
export const mandatesModule = defineModule({
  key: 'mandates',
  folder: 'mandates',
  layer: 'feature',
  reaches: ['customers', 'payment-methods'],
  tables: ['mandates'],
  crossings: [
    {
      table: 'payment_methods',
      why: "A mandate is made on a saved card of its customer, read and kept (brand, last four, expiry) in the insert's own statement.",
    },
    { table: 'customers', why: "A charge's mandate is read only while its customer exists: an erased customer's mandates are read through no one." },
  ],
  build: () => new MandatesService(),
  operations: mandatesOperations,
});
