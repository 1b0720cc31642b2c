import { defineModule } from '../api/module';
import { paymentMethodsOperations } from './payment-methods.operations';
import { PaymentMethodsService } from './payment-methods.service';

/** Saved cards and the default card per context name. */
export const paymentMethodsModule = defineModule({
  key: 'paymentMethods',
  folder: 'payment-methods',
  layer: 'feature',
  reaches: ['customers'],
  build: ({ settings }) => new PaymentMethodsService({ maxCardsPerCustomer: settings.maxCardsPerCustomer }),
  operations: paymentMethodsOperations,
});
