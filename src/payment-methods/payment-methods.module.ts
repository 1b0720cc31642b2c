import { defineModule } from '../api/module';
import { paymentMethodsOperations } from './payment-methods.operations';
import { PaymentMethodsService } from './payment-methods.service';

/** Saved cards and the default card per context name. */
export const paymentMethodsModule = defineModule({
  key: 'paymentMethods',
  folder: 'payment-methods',
  layer: 'feature',
  reaches: ['customers'],
  tables: ['payment_methods', 'default_payment_methods'],
  crossings: [
    {
      table: 'customers',
      why: "A card save locks its customer for the card cap, and a customer's cards and defaults read the customer in the same statement, to tell 'no such customer' from 'no cards' in one round trip.",
    },
  ],
  build: ({ settings }) => new PaymentMethodsService({ maxCardsPerCustomer: settings.maxCardsPerCustomer }),
  operations: paymentMethodsOperations,
});
