import type { Knex } from 'knex';
import type { ApiServices } from './api-operations';
import { CustomersService } from './customers/customers.service';
import { EventsService } from './events/events.service';
import { CheckoutFlow } from './flows/checkout/checkout.flow';
import { CustomerErasureFlow } from './flows/customer-erasure/customer-erasure.flow';
import { RefundFlow } from './flows/refunds/refund.flow';
import { SandboxClockFlow } from './flows/sandbox-clock/sandbox-clock.flow';
import { SandboxClocks } from './platform/clock/sandbox-clocks';
import { MandatesService } from './mandates/mandates.service';
import { PaymentIntentsService } from './payment-intents/payment-intents.service';
import type { PaymentProcessor } from './payment-processor/payment-processor';
import { PaymentMethodsService } from './payment-methods/payment-methods.service';
import { RefundsService } from './refunds/refunds.service';
import type { Logger } from './platform/logger';
import { WebhookEndpointsService } from './webhooks/webhook-endpoints.service';

/** What the feature services are told: every value from the parsed configuration (config.ts holds the defaults). */
export interface ServiceSettings {
  /** PAYMENT_CURRENCIES: ISO 4217 codes payment intents may use. */
  paymentCurrencies: readonly string[];
  /** SESSION_SECRET_TTL_SECONDS. */
  sessionSecretTtlSeconds: number;
  /** MAX_CARDS_PER_CUSTOMER. */
  maxCardsPerCustomer: number;
  /** PROCESSING_RECOVERY_SECONDS: an intent PROCESSING longer than this is settled by asking the processor again. */
  processingRecoverySeconds: number;
  /** CAPTURE_WINDOW_SECONDS: an authorization is voided this long after it is made unless captured. */
  captureWindowSeconds: number;
  /** INTENT_EXPIRY_HOURS: an intent still unpaid this long after its creation is canceled. */
  intentExpiryHours: number;
  /** REFUND_WINDOW_DAYS: how long after its capture a payment may be refunded. */
  refundWindowDays: number;
  /** OVERCAPTURE_MAX_PERCENT: how far above the authorized amount a capture with the tip added may go. */
  overcaptureMaxPercent: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and private hosts as webhook URLs. */
  webhookAllowPrivateTargets: boolean;
  /** WEBHOOK_MAX_ENDPOINTS_PER_LOCATION. */
  webhookMaxEndpointsPerLocation: number;
  /** How long a replica remembers a location's sandbox clock offset, and so how long an advance takes at least; SANDBOX_CLOCK_CACHE_MS when omitted. */
  sandboxClockCacheMs?: number;
}

/**
 * Every feature service and flow, built once (the composition root): server.ts hands the same ones to the
 * app and to the work beside it (the checkout's sweeps), and the tests to
 * the app they start.
 */
export function createServices(settings: ServiceSettings, parts: { db: Knex; processor: PaymentProcessor; logger: Logger }): ApiServices {
  const paymentIntents = new PaymentIntentsService({
    currencies: settings.paymentCurrencies,
    sessionSecretTtlMs: settings.sessionSecretTtlSeconds * 1000,
    expiryHours: settings.intentExpiryHours,
  });
  const checkout = new CheckoutFlow(parts.processor, parts.logger, {
    captureWindowSeconds: settings.captureWindowSeconds,
    overcaptureMaxPercent: settings.overcaptureMaxPercent,
  });
  const refund = new RefundFlow(parts.processor, parts.logger, { refundWindowDays: settings.refundWindowDays });
  return {
    customers: new CustomersService(),
    paymentMethods: new PaymentMethodsService({ maxCardsPerCustomer: settings.maxCardsPerCustomer }),
    paymentIntents,
    checkout,
    customerErasure: new CustomerErasureFlow(),
    refunds: new RefundsService(),
    refund,
    sandboxClock:
      parts.processor.name === 'sandbox'
        ? new SandboxClockFlow(new SandboxClocks(parts.db, settings.sandboxClockCacheMs), [
            (db, locationId) => checkout.voidExpiredAuthorizations(db, locationId),
            (db, locationId) => checkout.recoverProcessing(db, settings.processingRecoverySeconds, locationId),
            (db, locationId) => paymentIntents.expireDue(db, locationId),
            // Every PENDING refund asked about, however recent: the clock has just moved past its time.
            (db, locationId) => refund.settlePending(db, 0, locationId),
          ])
        : undefined,
    mandates: new MandatesService(),
    events: new EventsService(),
    webhookEndpoints: new WebhookEndpointsService({
      allowPrivateTargets: settings.webhookAllowPrivateTargets,
      maxEndpointsPerLocation: settings.webhookMaxEndpointsPerLocation,
    }),
  };
}
