import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import type { Knex } from 'knex';
import type { Auth } from './auth/auth';
import { authenticate } from './auth/authenticate';
import { requireLocationEntitlement } from './auth/location-entitlement';
import { SESSION_SECRET_HEADER } from './auth/session-grant';
import { apiRouter } from './api/api-router';
import { API_OPERATIONS, type ApiServices } from './api-operations';
import { jwksRouter } from './auth/jwks.router';
import { loginRouter } from './auth/login.router';
import { browserCors } from './platform/http/browser-cors';
import { buildOpenApiDocument } from './docs/openapi-document';
import { openApiRouter } from './docs/openapi.router';
import { healthRouter } from './platform/health/health.router';
import { IdempotentCreates, type IdempotencySettings } from './idempotency/idempotent-creates';
import { apiRateLimit, type RateLimitSettings } from './platform/rate-limit/api-rate-limit';
import { closeConnectionsWhileDraining, Readiness } from './platform/lifecycle/readiness';
import type { Metrics } from './platform/metrics/metrics';
import { PaymentIntentsService } from './payment-intents/payment-intents.service';
import { CheckoutService } from './payment-intents/checkout.service';
import type { PaymentProcessor } from './payment-processor/payment-processor';
import { SandboxProcessor } from './payment-processor/sandbox-processor';
import { CustomersService } from './customers/customers.service';
import { EventsService } from './events/events.service';
import { WebhookEndpointsService } from './webhooks/webhook-endpoints.service';
import { PaymentMethodsService } from './payment-methods/payment-methods.service';
import { errorHandler } from './platform/http/error-handler';
import { inOrder } from './platform/http/in-order';
import { locationHeader } from './platform/http/location-header';
import { routeNotFound } from './platform/http/not-found';
import { labelErrorRoutes } from './platform/http/route-template';
import { expressRoute } from './api/operation';
import { requestId } from './platform/http/request-id';
import { requestLogger } from './platform/http/request-logger';
import { loadShedding, type LoadSheddingSettings } from './platform/http/load-shedding';
import { DEFAULT_REQUEST_TIMEOUT_MS, requestDeadline } from './platform/http/request-deadline';
import { singleValuedHeaders } from './platform/http/single-valued-headers';
import type { Logger } from './platform/logger';
import { DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION, MAX_CARDS_PER_CUSTOMER } from './platform/config';

export interface AppDependencies {
  db: Knex;
  logger: Logger;
  auth: Auth;
  settings: AppSettings;
  /** Turns readiness 503 during shutdown; a fresh one (never shutting down) when omitted. */
  readiness?: Readiness;
  /** Request timing for /metrics; none when omitted. */
  metrics?: Metrics;
  /** The payment processor confirms, captures and voids go to; the sandbox on `db`, answering at once, when omitted. */
  processor?: PaymentProcessor;
}

export interface AppSettings {
  /** ISO 4217 codes payment intents may use. */
  paymentCurrencies: readonly string[];
  sessionSecretTtlSeconds: number;
  /** Saved cards a customer may hold (MAX_CARDS_PER_CUSTOMER); the documented 50 when omitted. */
  maxCardsPerCustomer?: number;
  /** Origins allowed to call the browser-side operations (CORS). */
  corsAllowedOrigins: readonly string[];
  /** Express's `trust proxy` (config's TRUST_PROXY); the socket's peer when omitted. */
  trustProxy?: boolean | number | string[];
  /** A request unanswered after this long is answered 503 (request-deadline.ts). */
  requestTimeoutMs?: number;
  /** How long readiness waits for the database. */
  healthDatabaseTimeoutMs?: number;
  idempotency: IdempotencySettings;
  rateLimit: RateLimitSettings;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and private hosts as webhook URLs; refused when omitted. */
  webhookAllowPrivateTargets?: boolean;
  /** WEBHOOK_MAX_ENDPOINTS_PER_LOCATION: endpoints a location may hold; the default 16 when omitted. */
  webhookMaxEndpointsPerLocation?: number;
  /** OVERLOAD_*: when a new request is answered 503 at once rather than queued; none is shed when omitted. */
  loadShedding?: LoadSheddingSettings;
  /** CAPTURE_WINDOW_SECONDS: an authorization is voided this long after it is made unless captured; Toast's 300 when omitted. */
  captureWindowSeconds?: number;
}

/** Toast voids an authorization not applied within five minutes. */
export const DEFAULT_CAPTURE_WINDOW_SECONDS = 300;

/** Answers about customers and their cards are never to be kept by a browser or a shared cache. */
const noStore: RequestHandler = (_request, response, next) => {
  response.setHeader('Cache-Control', 'no-store');
  next();
};

/** Builds the service's Express app. It never listens: server.ts and the tests do. */
export function createApp({
  db,
  logger,
  auth,
  settings,
  readiness = new Readiness(),
  metrics,
  processor = new SandboxProcessor(db, { latencyMs: 0 }),
}: AppDependencies): Express {
  const app = express();
  closeConnectionsWhileDraining(app, readiness);
  app.disable('x-powered-by');
  app.set('etag', false);
  // Duplicated query parameters arrive as arrays and fail validation, rather than being merged.
  app.set('query parser', 'simple');
  // Which proxies to believe for the caller's address (the login throttle counts by it).
  app.set('trust proxy', settings.trustProxy ?? false);

  const services: ApiServices = {
    customers: new CustomersService(),
    paymentMethods: new PaymentMethodsService({ maxCardsPerCustomer: settings.maxCardsPerCustomer ?? MAX_CARDS_PER_CUSTOMER }),
    paymentIntents: new PaymentIntentsService({
      currencies: settings.paymentCurrencies,
      sessionSecretTtlMs: settings.sessionSecretTtlSeconds * 1000,
    }),
    checkout: new CheckoutService(processor, logger, { captureWindowSeconds: settings.captureWindowSeconds ?? DEFAULT_CAPTURE_WINDOW_SECONDS }),
    events: new EventsService(),
    webhookEndpoints: new WebhookEndpointsService({
      allowPrivateTargets: settings.webhookAllowPrivateTargets ?? false,
      maxEndpointsPerLocation: settings.webhookMaxEndpointsPerLocation ?? DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION,
    }),
  };
  const creates = new IdempotentCreates(db, settings.idempotency);
  const document = buildOpenApiDocument();
  // The browser-side operations, which a page calls with a session secret.
  const browserOperations = API_OPERATIONS.filter(({ access }) => access.sessionSecret !== undefined);

  // Every request, as one router layer (in-order.ts): id, access log, load
  // shedding, deadline, timing, security headers, repeated-header check.
  app.use(
    inOrder(
      requestId(),
      requestLogger(logger),
      ...(settings.loadShedding ? [loadShedding(settings.loadShedding, { logger })] : []),
      requestDeadline(settings.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS, logger),
      ...(metrics ? [metrics.recordRequests] : []),
      helmet(),
      singleValuedHeaders(),
    ),
  );

  // Before authentication: a browser's preflight carries no token.
  app.use(browserCors(settings.corsAllowedOrigins, [SESSION_SECRET_HEADER], browserOperations));
  // The API first, so that its requests (nearly all of them) do not walk the
  // routers below. Who is asking comes first (401), then for which location
  // (400), then whether the token may act there (403); each operation checks
  // its own access (api/access.ts).
  app.use(
    '/v1',
    inOrder(noStore, authenticate(auth.verifier), locationHeader(), requireLocationEntitlement(), apiRateLimit(db, settings.rateLimit)),
    apiRouter(API_OPERATIONS, {
      db,
      services,
      creates,
      sessionGrant: (locationId, secret) => services.paymentIntents.sessionGrant(db, locationId, secret),
    }),
  );
  // Probes need neither a token nor a location.
  app.use(healthRouter(db, readiness, settings.healthDatabaseTimeoutMs ?? 1000));
  app.use(openApiRouter(document));
  app.use(loginRouter(auth.login));
  app.use(jwksRouter(auth.publicKeys));

  app.use(routeNotFound(document.paths ?? {}));
  app.use(labelErrorRoutes(API_OPERATIONS.map(({ method, path }) => ({ method, template: expressRoute(path) }))));
  app.use(errorHandler(logger));
  return app;
}
