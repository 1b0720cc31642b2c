import { defineModule } from '../../api/module';
import { CustomerErasureFlow } from './customer-erasure.flow';
import { customerErasureOperations } from './customer-erasure.operations';

/** DELETE /v1/customers/{id}: the erasure reaches every feature that holds something of the customer. */
export const customerErasureModule = defineModule({
  key: 'customerErasure',
  folder: 'flows/customer-erasure',
  layer: 'flow',
  build: () => new CustomerErasureFlow(),
  operations: customerErasureOperations,
});
