import { defineModule } from '../api/module';
import { customersOperations } from './customers.operations';
import { CustomersService } from './customers.service';

/** Payor records: the bottom feature, reaching no other. */
export const customersModule = defineModule({
  key: 'customers',
  folder: 'customers',
  layer: 'feature',
  reaches: [],
  tables: ['customers', 'erased_customers', 'customer_reference_duplicates'],
  build: () => new CustomersService(),
  operations: customersOperations,
});
