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
import { errorHandler } from './platform/http/error-handler';
import { inOrder } from './platform/http/in-order';
import { locationHeader } from './platform/http/location-header';
import { routeNotFound } from './platform/http/not-found';
import { onFirstUse } from './platform/on-first-use';
import { labelErrorRoutes } from './platform/http/route-template';
import { expressRoute } from './api/operation';
import { requestId } from './platform/http/request-id';
import { requestLogger } from './platform/http/request-logger';
import { loadShedding, type LoadSheddingSettings } from './platform/http/load-shedding';
import { requestDeadline } from './platform/http/request-deadline';
import { singleValuedHeaders } from './platform/http/single-valued-headers';
import { onLocationClock } from './platform/clock/on-location-clock';
import type { Logger } from './platform/logger';

export interface AppDependencies {
  db: Knex;
  logger: Logger;
  auth: Auth;
  settings: AppSettings;
  /** Turns readiness 503 during shutdown; a fresh one (never shutting down) when omitted. */
  readiness?: Readiness;
  /** Request timing for /metrics; none when omitted. */
  metrics?: Metrics;
  /** The feature services the operations call, built once (src/modules.ts). */
  services: ApiServices;
}

export interface AppSettings {
  /** Origins allowed to call the browser-side operations (CORS). */
  corsAllowedOrigins: readonly string[];
  /** Express's `trust proxy` (config's TRUST_PROXY). */
  trustProxy: boolean | number | string[];
  /** REQUEST_TIMEOUT_MS: a request unanswered after this long is answered 503 (request-deadline.ts). */
  requestTimeoutMs: number;
  /** HEALTH_DATABASE_TIMEOUT_MS: how long readiness waits for the database. */
  healthDatabaseTimeoutMs: number;
  idempotency: IdempotencySettings;
  rateLimit: RateLimitSettings;
  /** OVERLOAD_*: when a new request is answered 503 at once rather than queued; none is shed when omitted. */
  loadShedding?: LoadSheddingSettings;
}

/** Answers about customers and their cards are never to be kept by a browser or a shared cache. */
const noStore: RequestHandler = (_request, response, next) => {
  response.setHeader('Cache-Control', 'no-store');
  next();
};

/** Builds the service's Express app. It never listens: server.ts and the tests do. */
export function createApp({ db, logger, auth, settings, readiness = new Readiness(), metrics, services }: AppDependencies): Express {
  const app = express();
  closeConnectionsWhileDraining(app, readiness);
  app.disable('x-powered-by');
  app.set('etag', false);
  // Duplicated query parameters arrive as arrays and fail validation, rather than being merged.
  app.set('query parser', 'simple');
  // Which proxies to believe for the caller's address (the login throttle counts by it).
  app.set('trust proxy', settings.trustProxy);

  const creates = new IdempotentCreates(db, settings.idempotency);
  // Made when first needed (a docs request, a path no route takes), not at start-up: most processes never need it.
  const document = onFirstUse(buildOpenApiDocument);
  // The browser-side operations, which a page calls with a session secret.
  const browserOperations = API_OPERATIONS.filter(({ access }) => access.sessionSecret !== undefined);

  // Every request, as one router layer (in-order.ts): id, access log, load
  // shedding, deadline, timing, security headers, repeated-header check.
  app.use(
    inOrder(
      requestId(),
      requestLogger(logger),
      ...(settings.loadShedding ? [loadShedding(settings.loadShedding, { logger })] : []),
      requestDeadline(settings.requestTimeoutMs, logger),
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
    inOrder(
      noStore,
      authenticate(auth.verifier),
      locationHeader(),
      requireLocationEntitlement(),
      apiRateLimit(db, settings.rateLimit),
      ...(services.sandboxClock ? [onLocationClock(services.sandboxClock.clocks)] : []),
    ),
    apiRouter(API_OPERATIONS, {
      db,
      services,
      creates,
      // Each kind of secret is its intent's feature's to check: `SI_` a setup intent's, any other a payment intent's.
      sessionGrant: (locationId, secret) =>
        secret.startsWith('SI_') ? services.setupIntents.sessionGrant(db, locationId, secret) : services.paymentIntents.sessionGrant(db, locationId, secret),
    }),
  );
  // Probes need neither a token nor a location.
  app.use(healthRouter(db, readiness, settings.healthDatabaseTimeoutMs));
  app.use(openApiRouter(document));
  app.use(loginRouter(auth.login));
  app.use(jwksRouter(auth.publicKeys));

  app.use(routeNotFound(() => document().paths ?? {}));
  app.use(labelErrorRoutes(API_OPERATIONS.map(({ method, path }) => ({ method, template: expressRoute(path) }))));
  app.use(errorHandler(logger));
  return app;
}
