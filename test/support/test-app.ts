import type { RequestListener } from 'node:http';
import { createApp } from '../../src/app';
import { buildModules } from '../../src/modules';
import { serviceSettingsFrom } from '../../src/api/service-settings';
import { loadConfig } from '../../src/platform/config';
import type { ApiClient } from '../../src/auth/api-clients';
import { assembleAuth, type AuthSettings } from '../../src/auth/auth';
import { hashClientSecret } from '../../src/auth/client-secret';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import { newSigningJwk, signingKeysFromJwk, type SigningKeys } from '../../src/auth/signing-keys';
import { TokenIssuer } from '../../src/auth/token-issuer';
import type { ExternalIssuerSettings } from '../../src/auth/token-verifier';
import type { RateLimitSettings } from '../../src/platform/rate-limit/api-rate-limit';
import type { Readiness } from '../../src/platform/lifecycle/readiness';
import { createLogger } from '../../src/platform/logger';
import type { CheckoutFlow } from '../../src/flows/checkout/checkout.flow';
import type { PaymentIntentsService } from '../../src/payment-intents/payment-intents.service';
import type { RefundsService } from '../../src/refunds/refunds.service';
import type { DisputesService } from '../../src/disputes/disputes.service';
import type { CardSetupFlow } from '../../src/flows/card-setup/card-setup.flow';
import type { SetupIntentsService } from '../../src/setup-intents/setup-intents.service';
import { sandboxRefundSettlesAfterMs } from '../../src/refunds/refund-sweeps';
import type { PaymentProcessor } from '../../src/payment-processor/payment-processor';
import { SandboxProcessor } from '../../src/payment-processor/sandbox-processor';
import { createMetrics, type Metrics } from '../../src/platform/metrics/metrics';
import { LOCATION_HEADER } from '../factories/locations';
import { withContractCheck } from './contract/contract-recorder';
import { openTestDatabase, type TestDatabase } from './test-database';

export const TEST_ISSUER = 'urn:test-issuer';
export const TEST_AUDIENCE = 'test-audience';
export const TEST_CORS_ORIGIN = 'https://checkout.example.test';
export const TEST_CLIENT = { clientId: 'test-client', clientSecret: 'test-client-secret' };

export interface TestApp {
  /** The app, with every response it writes held to the OpenAPI document. */
  app: RequestListener;
  db: TestDatabase;
  /** Every log line the app wrote, as written. */
  logLines: string[];
  keys: SigningKeys;
  /** A token signed by the app's own key, as its login would issue it. */
  tokenFor(grant: { scopes: readonly Scope[]; locations: readonly string[] }, clientId?: string): Promise<string>;
  /** Headers for a request at `location` with a token holding every scope for every location. */
  as(location: string): Record<string, string>;
  /** The Authorization header of that all-powerful token. */
  adminAuthorization: Record<string, string>;
  metrics: Metrics | undefined;
  /** The checkout as the server's sweeps run it (capture window, recovery), on the app's processor and database. */
  checkout: CheckoutFlow;
  /** The payment intents' record, as the server's expiry sweep runs it. */
  paymentIntents: PaymentIntentsService;
  /** The refunds as the server's sweep runs them (PENDING refunds asked about again). */
  refunds: RefundsService;
  /** The disputes as the server's rules run them (deadlines, decisions, withdrawals, the sandbox's dispute cards). */
  disputes: DisputesService;
  /** The setup intents' record, as the server's expiry sweep runs it. */
  setupIntents: SetupIntentsService;
  /** The card setup as the server's recovery sweep runs it. */
  cardSetup: CardSetupFlow;
  close(): Promise<void>;
}

export interface TestAppOptions {
  clients?: ApiClient[];
  external?: ExternalIssuerSettings;
  maxLoginFailures?: number;
  maxLoginFailuresPerAddress?: number;
  sessionSecretTtlSeconds?: number;
  /** MAX_CARDS_PER_CUSTOMER: the documented 50 when omitted. */
  maxCardsPerCustomer?: number;
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS; true (as outside production) when omitted, so receivers on 127.0.0.1 work. */
  webhookAllowPrivateTargets?: boolean;
  /** Shared with the test, to start a shutdown. */
  readiness?: Readiness;
  /** Time requests for /metrics (exposed as `metrics`). */
  withMetrics?: boolean;
  idempotencyTtlSeconds?: number;
  /** A tight limit for the tests about it; others get one they never reach. */
  rateLimit?: RateLimitSettings;
  /** Another database than a fresh test one, e.g. one that cannot be reached. */
  database?: TestDatabase;
  /** The payment processor, e.g. the sandbox behind a gate; the sandbox over the test database when omitted. */
  processor?: (db: TestDatabase) => PaymentProcessor;
  /** CAPTURE_WINDOW_SECONDS; the default 300 when omitted. */
  captureWindowSeconds?: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_LOCATION; the default 16 when omitted. */
  webhookMaxEndpointsPerLocation?: number;
  /**
   * How long the sandbox clock's offset is remembered, which every advance
   * waits out: 10 ms when omitted, so that a century of advances stays
   * quick; the test of two replicas takes the service's own (250 ms).
   */
  sandboxClockCacheMs?: number;
}

/** Cheap scrypt parameters: the tests check behaviour, not the hash's cost. */
export function testSecretHash(secret: string): Promise<string> {
  return hashClientSecret(secret, { N: 1024, r: 8, p: 1 });
}

/** The real app over a real (test) database, with its log captured for assertions. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const db = options.database ?? (await openTestDatabase());
  const metrics = options.withMetrics ? createMetrics(db.knex) : undefined;
  const logLines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => logLines.push(line) } });
  const keys = await signingKeysFromJwk(await newSigningJwk());
  const clients = options.clients ?? [
    { clientId: TEST_CLIENT.clientId, secretHash: await testSecretHash(TEST_CLIENT.clientSecret), scopes: [...SCOPES], locations: ['*'] },
  ];
  const settings: AuthSettings = {
    issuer: TEST_ISSUER,
    audience: TEST_AUDIENCE,
    ttlSeconds: 600,
    maxTokenLifetimeSeconds: 86_400,
    maxLoginFailures: options.maxLoginFailures ?? 5,
    maxLoginFailuresPerAddress: options.maxLoginFailuresPerAddress ?? 20,
    loginWindowSeconds: 60,
    ...(options.external ? { external: options.external } : {}),
  };
  const auth = assembleAuth(keys, clients, settings, db.knex);
  const issuer = new TokenIssuer(keys, settings);
  const tokenFor: TestApp['tokenFor'] = async ({ scopes, locations }, clientId = TEST_CLIENT.clientId) =>
    (await issuer.issue({ clientId, secretHash: '', scopes: [...scopes], locations: [...locations] }, scopes)).accessToken;
  const adminAuthorization = { Authorization: `Bearer ${await tokenFor({ scopes: SCOPES, locations: ['*'] })}` };
  // What a service started with no settings has (config.ts holds every default), less what a test sets.
  const defaults = loadConfig({ NODE_ENV: 'test' });
  const processor =
    options.processor?.(db) ??
    new SandboxProcessor(db.knex, { latencyMs: 0, refundSettlesAfterMs: sandboxRefundSettlesAfterMs(defaults.SANDBOX_ASYNC_REFUND_SECONDS) });
  const { services } = buildModules({
    db: db.knex,
    processor,
    logger,
    settings: {
      ...serviceSettingsFrom(defaults),
      sessionSecretTtlSeconds: options.sessionSecretTtlSeconds ?? defaults.SESSION_SECRET_TTL_SECONDS,
      maxCardsPerCustomer: options.maxCardsPerCustomer ?? defaults.MAX_CARDS_PER_CUSTOMER,
      captureWindowSeconds: options.captureWindowSeconds ?? defaults.CAPTURE_WINDOW_SECONDS,
      webhookAllowPrivateTargets: options.webhookAllowPrivateTargets ?? defaults.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      webhookMaxEndpointsPerLocation: options.webhookMaxEndpointsPerLocation ?? defaults.WEBHOOK_MAX_ENDPOINTS_PER_LOCATION,
      sandboxClockCacheMs: options.sandboxClockCacheMs ?? 10,
    },
  });

  return {
    app: withContractCheck(
      createApp({
        db: db.knex,
        logger,
        auth,
        services,
        ...(options.readiness ? { readiness: options.readiness } : {}),
        ...(metrics ? { metrics } : {}),
        settings: {
          corsAllowedOrigins: [TEST_CORS_ORIGIN],
          trustProxy: defaults.TRUST_PROXY,
          requestTimeoutMs: defaults.REQUEST_TIMEOUT_MS,
          healthDatabaseTimeoutMs: defaults.HEALTH_DATABASE_TIMEOUT_MS,
          idempotency: {
            ttlSeconds: options.idempotencyTtlSeconds ?? defaults.IDEMPOTENCY_KEY_TTL_SECONDS,
            lockTimeoutSeconds: defaults.IDEMPOTENCY_LOCK_TIMEOUT_SECONDS,
            statementTimeoutMs: defaults.DB_STATEMENT_TIMEOUT_MS,
          },
          // A limit no test reaches, unless it is the test of it.
          rateLimit: options.rateLimit ?? { requests: 100_000, windowSeconds: 60 },
        },
      }),
    ),
    db,
    logLines,
    keys,
    tokenFor,
    as: (location) => ({ ...adminAuthorization, [LOCATION_HEADER]: location }),
    adminAuthorization,
    metrics,
    checkout: services.checkout,
    paymentIntents: services.paymentIntents,
    refunds: services.refunds,
    disputes: services.disputes,
    setupIntents: services.setupIntents,
    cardSetup: services.cardSetup,
    close: () => db.close(),
  };
}

/** Log lines parsed as JSON objects. */
export function parsedLogs(logLines: readonly string[]): Array<Record<string, unknown>> {
  return logLines.map((line) => JSON.parse(line) as Record<string, unknown>);
}
