import type { Config } from '../platform/config';

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
  /** The webhook dispatcher's settings (WEBHOOK_*); none: this process delivers no webhooks (WEBHOOK_DELIVERY=false, and the tests' apps). */
  webhookDelivery?: WebhookDeliverySettings;
}

/** How the webhook dispatcher delivers (src/webhooks/webhook-dispatcher.ts). */
export interface WebhookDeliverySettings {
  /** Seconds before each retry (WEBHOOK_RETRY_SCHEDULE); one attempt plus one per entry. */
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  pollIntervalMs: number;
  /** Deliveries in flight in this process (at most 4 of them to one endpoint). */
  concurrency: number;
  /** An endpoint failing every attempt for this long is disabled. */
  disableAfterMs: number;
  allowPrivateTargets: boolean;
}

/** What the modules are told: every value from the parsed configuration (config.ts holds the defaults). */
export function serviceSettingsFrom(config: Config): ServiceSettings {
  return {
    paymentCurrencies: config.PAYMENT_CURRENCIES,
    sessionSecretTtlSeconds: config.SESSION_SECRET_TTL_SECONDS,
    maxCardsPerCustomer: config.MAX_CARDS_PER_CUSTOMER,
    captureWindowSeconds: config.CAPTURE_WINDOW_SECONDS,
    processingRecoverySeconds: config.PROCESSING_RECOVERY_SECONDS,
    refundWindowDays: config.REFUND_WINDOW_DAYS,
    intentExpiryHours: config.INTENT_EXPIRY_HOURS,
    overcaptureMaxPercent: config.OVERCAPTURE_MAX_PERCENT,
    webhookAllowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
    webhookMaxEndpointsPerLocation: config.WEBHOOK_MAX_ENDPOINTS_PER_LOCATION,
    ...(config.WEBHOOK_DELIVERY
      ? {
          webhookDelivery: {
            retryScheduleSeconds: config.WEBHOOK_RETRY_SCHEDULE,
            timeoutMs: config.WEBHOOK_TIMEOUT_MS,
            pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
            concurrency: config.WEBHOOK_CONCURRENCY,
            disableAfterMs: config.WEBHOOK_DISABLE_AFTER_DAYS * 24 * 60 * 60 * 1000,
            allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS,
          },
        }
      : {}),
  };
}
