import type { Operation } from './api/operation';
import type { CustomersService } from './customers/customers.service';
import { customersOperations } from './customers/customers.operations';
import type { EventsService } from './events/events.service';
import { eventsOperations } from './events/events.operations';
import type { WebhookEndpointsService } from './webhooks/webhook-endpoints.service';
import { webhookEndpointsOperations } from './webhooks/webhook-endpoints.operations';
import type { CheckoutFlow } from './flows/checkout/checkout.flow';
import { checkoutOperations } from './flows/checkout/checkout.operations';
import type { CustomerErasureFlow } from './flows/customer-erasure/customer-erasure.flow';
import type { RefundFlow } from './flows/refunds/refund.flow';
import type { SandboxClockFlow } from './flows/sandbox-clock/sandbox-clock.flow';
import { sandboxClockOperations } from './flows/sandbox-clock/sandbox-clock.operations';
import { refundOperations } from './flows/refunds/refund.operations';
import { customerErasureOperations } from './flows/customer-erasure/customer-erasure.operations';
import type { MandatesService } from './mandates/mandates.service';
import { mandatesOperations } from './mandates/mandates.operations';
import type { PaymentIntentsService } from './payment-intents/payment-intents.service';
import { paymentIntentsOperations } from './payment-intents/payment-intents.operations';
import type { PaymentMethodsService } from './payment-methods/payment-methods.service';
import { paymentMethodsOperations } from './payment-methods/payment-methods.operations';
import type { RefundsService } from './refunds/refunds.service';
import { refundsOperations } from './refunds/refunds.operations';

/** The feature services and flows the operations' handlers call; api-services.ts makes them. */
export interface ApiServices {
  customers: CustomersService;
  paymentMethods: PaymentMethodsService;
  paymentIntents: PaymentIntentsService;
  checkout: CheckoutFlow;
  customerErasure: CustomerErasureFlow;
  refunds: RefundsService;
  refund: RefundFlow;
  mandates: MandatesService;
  /** The locations' sandbox clocks: only while the sandbox processor is in use. */
  sandboxClock: SandboxClockFlow | undefined;
  events: EventsService;
  webhookEndpoints: WebhookEndpointsService;
}

/**
 * Every /v1 operation: app.ts mounts them, the OpenAPI document renders
 * them, and the scope table and scope tests are derived from them. The
 * busiest come first, as Express tries routes in order.
 */
export const API_OPERATIONS: readonly Operation<ApiServices>[] = [
  ...paymentMethodsOperations,
  ...paymentIntentsOperations,
  ...checkoutOperations,
  ...refundOperations,
  ...refundsOperations,
  ...mandatesOperations,
  ...customersOperations,
  ...customerErasureOperations,
  ...eventsOperations,
  ...webhookEndpointsOperations,
  ...sandboxClockOperations,
];
