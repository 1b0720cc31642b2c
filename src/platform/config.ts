import { z } from 'zod';
// The service's own messages for zod's defaults, here too: a bad variable is named in the same words.
import './validation/messages';
import { databaseHostsOf } from './db/database-hosts';

/** How long the service's own tokens may live; the token answer's `expiresIn` is documented with the same bounds. */
export const TOKEN_TTL_SECONDS_RANGE = { min: 60, max: 86_400 } as const;

/** The most webhook endpoints a location may hold by default (Stripe's limit); WEBHOOK_MAX_ENDPOINTS_PER_LOCATION sets it. */
export const DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION = 16;
/** The most WEBHOOK_MAX_ENDPOINTS_PER_LOCATION may be: each event fans out to every endpoint. */
export const WEBHOOK_MAX_ENDPOINTS_PER_LOCATION_BOUND = 100;

/** The most saved cards a customer may hold, as the document states it; MAX_CARDS_PER_CUSTOMER may lower it. */
export const MAX_CARDS_PER_CUSTOMER = 50;

const booleanFlag = z.enum(['true', 'false', '1', '0'], { message: 'must be true or false' }).transform((value) => value === 'true' || value === '1');

const positiveInt = z.coerce.number().int().positive();

/** A PostgreSQL URL, libpq's multi-host form included (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`). */
const postgresUrl = z.string().superRefine((value, context) => {
  try {
    databaseHostsOf(value);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

/** Longer than a load balancer's usual probe period times its failure threshold (e.g. 2 × 2 s). */
const PRODUCTION_DRAIN_SECONDS = 5;

/**
 * Every environment variable the service reads, parsed once. A bad value stops
 * start-up with a message naming the variable, rather than turning into NaN or
 * a silent default somewhere deep in the code.
 */
const environmentSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8080),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** Worker processes (node:cluster); more than 1 needs DATABASE_URL, since PGlite is one process's. */
    WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
    /**
     * After SIGTERM, how long the listener keeps serving (readiness failing,
     * every answer `Connection: close`) before it closes: longer than the load
     * balancer takes to notice a failed readiness probe. 5 in production, 0 by
     * default elsewhere (a developer's Ctrl-C stops at once).
     */
    SHUTDOWN_DRAIN_SECONDS: z.coerce.number().min(0).max(300).optional(),
    /** Once the listener is closed, how long in-flight requests may take before their connections are closed. */
    SHUTDOWN_TIMEOUT_MS: positiveInt.default(10_000),
    /** Prometheus metrics are served on this port only (never on PORT); 0 turns them off. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
    /** Node's HTTP limits: see docs/deployment.md for why these values. */
    HTTP_HEADERS_TIMEOUT_MS: positiveInt.default(15_000),
    HTTP_REQUEST_TIMEOUT_MS: positiveInt.default(30_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.default(65_000),
    HTTP_MAX_HEADER_SIZE: positiveInt.default(16_384),
    /**
     * A request still unanswered after this long is answered 503 with
     * Retry-After (a stalled or slow database must not hold callers for as long
     * as the fault lasts). Each query is also bounded on the client side, at
     * DB_STATEMENT_TIMEOUT_MS plus one second.
     */
    // Above the statement timeout plus the wait for a connection, by default.
    REQUEST_TIMEOUT_MS: positiveInt.default(10_000),
    /**
     * Load shedding (docs/deployment.md): requests in flight beyond which a new
     * one is answered 503 SERVICE_OVERLOADED at once instead of queued; 0 turns
     * the bound off.
     */
    OVERLOAD_MAX_IN_FLIGHT: z.coerce.number().int().min(0).default(256),
    /**
     * The event loop's lateness (p99 over 0.5 s) beyond which new requests are
     * shed; 0 (the default) turns it off. A CPU-saturated process is late; so is
     * one starved by its neighbours, which is why it is opt-in until the
     * benchmark's overload scenario has tuned it.
     */
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: z.coerce.number().int().min(0).default(0),
    /**
     * How long the 503 of a connection shed again less than Retry-After after
     * its last 503 is held, doubled for each further early ask in a row up to
     * Retry-After (shed-answer-hold.ts): a client that asks again at once must
     * not take the CPU from the requests accepted. 0 answers every shed
     * request at once.
     */
    OVERLOAD_REPEAT_HOLD_MS: z.coerce.number().int().min(0).max(1000).default(100),
    /** How long readiness waits for the database before answering 503. */
    HEALTH_DATABASE_TIMEOUT_MS: positiveInt.default(1000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** A PostgreSQL server; when unset, an embedded PostgreSQL (PGlite) under DATA_DIR. */
    DATABASE_URL: postgresUrl.optional(),
    DATA_DIR: z.string().min(1).default('./data'),
    /**
     * Production runs on DATABASE_URL: the embedded database is one process's,
     * for development. This lets NODE_ENV=production start on it anyway (a demo
     * box, a single-process trial), at the operator's word.
     */
    ALLOW_EMBEDDED_DATABASE: booleanFlag.default(false),
    MIGRATE_ON_START: booleanFlag.default(true),
    /**
     * What stands between the service and DATABASE_URL. `pgbouncer`: PgBouncer
     * in transaction pooling mode, where a server connection is the service's
     * for one transaction only: no named prepared statements, no session
     * settings (statement_timeout goes on the database role instead), and
     * migrations over MIGRATIONS_DATABASE_URL, past the pooler (docs/deployment.md, PgBouncer).
     */
    DB_POOLER: z.enum(['none', 'pgbouncer']).default('none'),
    /** The same database reached without the pooler: migrations' advisory lock needs a session of its own. DATABASE_URL when unset. */
    MIGRATIONS_DATABASE_URL: postgresUrl.optional(),
    DB_POOL_MAX: positiveInt.default(10),
    /** How long a request waits for a pooled connection before it is answered 503. */
    DB_ACQUIRE_TIMEOUT_MS: positiveInt.default(3000),
    /** PostgreSQL's statement_timeout for every pooled connection. */
    DB_STATEMENT_TIMEOUT_MS: positiveInt.default(5000),

    /** `iss` of the tokens this service issues; every replica must share it. */
    TOKEN_ISSUER: z.string().min(1).default('urn:customer-payment-profiles'),
    /** `aud` of the tokens this service issues, and the audience it accepts from them. */
    TOKEN_AUDIENCE: z.string().min(1).default('customer-payment-profiles'),
    TOKEN_TTL_SECONDS: z.coerce.number().int().min(TOKEN_TTL_SECONDS_RANGE.min).max(TOKEN_TTL_SECONDS_RANGE.max).default(3600),
    /**
     * Tokens whose lifetime (`exp` - `iat`) is longer than this are refused, from
     * this service's issuer and an external one alike; so are tokens without `iat`.
     */
    AUTH_MAX_TOKEN_LIFETIME_SECONDS: positiveInt.default(86_400),
    /** A private JWK (ES256 or EdDSA, with `kid`) the tokens are signed with. */
    AUTH_SIGNING_KEY_FILE: z.string().min(1).optional(),
    /**
     * The keyring webhook signing secrets and session secrets are encrypted
     * with at rest (AES-256-GCM): {"current": id, "keys": {id: base64}}, made by
     * `npm run secrets:key:new`. Required in production; a development keyring
     * under DATA_DIR otherwise.
     */
    SECRETS_ENCRYPTION_KEY_FILE: z.string().min(1).optional(),
    /** A JWKS of retired public keys: still published and accepted during a rotation. */
    AUTH_PREVIOUS_KEYS_FILE: z.string().min(1).optional(),
    /** The API clients, as a JSON array in a file or in the variable itself. */
    AUTH_CLIENTS_FILE: z.string().min(1).optional(),
    AUTH_CLIENTS: z.string().min(1).optional(),
    /**
     * Login attempts of one client id from one address that may fail (or be
     * under way) in AUTH_LOGIN_WINDOW_SECONDS before that client's logins from
     * that address are refused with 429.
     */
    AUTH_LOGIN_MAX_FAILURES: positiveInt.default(5),
    /** Failed logins from one address (IPv4, or IPv6 /64), across client ids, per window. */
    AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: positiveInt.default(20),
    /**
     * Express's `trust proxy`: which proxies' X-Forwarded-For to believe for the
     * caller's address. `false` (the socket's peer), `true`, a hop count, or
     * comma-separated addresses, subnets and names (loopback, linklocal,
     * uniquelocal). Behind a load balancer, set it: otherwise every login seems
     * to come from the balancer, and the login throttle counts them all as one.
     */
    TRUST_PROXY: z
      .string()
      .default('false')
      .transform((value): boolean | number | string[] =>
        value === 'true' ? true : value === 'false' ? false : /^\d+$/.test(value) ? Number(value) : value.split(',').map((part) => part.trim()),
      ),
    AUTH_LOGIN_WINDOW_SECONDS: positiveInt.default(300),
    /** How long an Idempotency-Key's answer is kept and replayed. */
    IDEMPOTENCY_KEY_TTL_SECONDS: positiveInt.default(86_400),
    /** An attempt unfinished after this long is presumed dead, and a retry with its key may run. */
    IDEMPOTENCY_LOCK_TIMEOUT_SECONDS: positiveInt.default(60),
    /** Requests per client and location per RATE_LIMIT_WINDOW_SECONDS; 0 turns the limit off. */
    RATE_LIMIT_REQUESTS: z.coerce.number().int().min(0).default(1200),
    RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
    /** Currencies payment intents may use: ISO 4217 codes, comma-separated. */
    PAYMENT_CURRENCIES: z
      .string()
      .default('USD,CAD')
      .transform((value) => value.split(',').map((code) => code.trim()))
      .pipe(z.array(z.string().regex(/^[A-Z]{3}$/, { message: 'must be three uppercase letters each' })).min(1)),
    /**
     * Saved cards a customer may hold; one more is a 409 (CARD_LIMIT_REACHED).
     * At most the document's 50 (its `maxItems`): lower it, never raise it.
     */
    MAX_CARDS_PER_CUSTOMER: z.coerce.number().int().min(1).max(MAX_CARDS_PER_CUSTOMER).default(MAX_CARDS_PER_CUSTOMER),
    /** How long a payment intent's session secret stays live. */
    SESSION_SECRET_TTL_SECONDS: positiveInt.default(86_400),
    /** Origins allowed to call the browser-side operations (the reads, the confirm) over CORS, comma-separated; none by default. */
    CORS_ALLOWED_ORIGINS: z
      .string()
      .default('')
      .transform((value) =>
        value
          .split(',')
          .map((origin) => origin.trim())
          .filter((origin) => origin !== ''),
      )
      .pipe(z.array(z.url({ message: 'must be origins such as https://checkout.example.com' }))),
    /** Events are kept this long, then purged (one replica at a time). */
    EVENT_RETENTION_DAYS: positiveInt.default(90),
    /**
     * Seconds between a failed webhook delivery and each retry, comma-separated:
     * one attempt, then one retry per entry (each with ±10 % jitter), then the
     * delivery is failed. Standard Webhooks' schedule by default.
     */
    WEBHOOK_RETRY_SCHEDULE: z
      .string()
      .default('5,300,1800,7200,18000,36000,36000')
      .transform((value) => value.split(',').map((part) => Number(part.trim())))
      .pipe(z.array(z.number().positive({ message: 'must be positive numbers of seconds, comma-separated' })).max(20)),
    /**
     * Let webhook endpoints be private, loopback or link-local addresses and
     * plain http. The default outside production (a receiver on localhost);
     * false in production, where endpoints must be public https.
     */
    WEBHOOK_ALLOW_PRIVATE_TARGETS: booleanFlag.optional(),
    /** Webhook endpoints a location may hold; one more is a 409 (WEBHOOK_ENDPOINT_LIMIT_REACHED). Every event fans out to each. */
    WEBHOOK_MAX_ENDPOINTS_PER_LOCATION: positiveInt.max(WEBHOOK_MAX_ENDPOINTS_PER_LOCATION_BOUND).default(DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION),
    /** A delivery unanswered after this long fails (and is retried). */
    WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(10_000),
    /** How often each replica looks for new events and due retries. */
    WEBHOOK_POLL_INTERVAL_MS: positiveInt.default(1000),
    /** Deliveries in flight per replica; at most 4 of them to any one endpoint, so one slow endpoint cannot hold them all. */
    WEBHOOK_CONCURRENCY: positiveInt.max(256).default(16),
    /** An endpoint that failed every attempt for this long is disabled. */
    WEBHOOK_DISABLE_AFTER_DAYS: z.coerce.number().positive().default(5),
    /** Whether this replica delivers webhooks (every replica does by default; they never send one event twice). */
    WEBHOOK_DELIVERY: booleanFlag.default(true),
    /** The payment processor confirms, captures and voids go to. Only the sandbox exists for now (docs/checkout.md). */
    PAYMENT_PROCESSOR: z.enum(['sandbox']).default('sandbox'),
    /** Lets NODE_ENV=production start with the sandbox processor (a staging box), at the operator's word: it moves no money. */
    ALLOW_SANDBOX_PROCESSOR: booleanFlag.default(false),
    /** How long the sandbox takes to answer, so that PROCESSING can be seen and tested; 0 answers at once. */
    SANDBOX_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /** An authorization not captured within this long is voided (the intent CANCELED, cancellationReason AUTOMATIC); Toast's five minutes by default. */
    CAPTURE_WINDOW_SECONDS: positiveInt.default(300),
    /** An intent still unpaid this long after its creation is CANCELED, cancellationReason EXPIRED (Toast: "expires after 24 hours"). */
    INTENT_EXPIRY_HOURS: positiveInt.max(8760).default(24),
    /** A payment may be refunded for this long after its capture (Toast's operator rule: 90 days); later, 409 REFUND_WINDOW_CLOSED. */
    REFUND_WINDOW_DAYS: positiveInt.default(90),
    /** A capture with the tip added (overcapture) may go this far above the authorized amount, in percent (card networks allow restaurants 20). */
    OVERCAPTURE_MAX_PERCENT: z.coerce.number().int().min(0).max(100).default(20),
    /** The sandbox's card that answers refunds later (docs/checkout.md): its refunds turn SUCCEEDED within this long. */
    SANDBOX_ASYNC_REFUND_SECONDS: positiveInt.max(3600).default(5),
    /**
     * An intent PROCESSING for longer than this (its process died while the
     * processor was asked) is settled by asking the processor again with the
     * same idempotency key. Longer than the processor ever takes to answer.
     */
    PROCESSING_RECOVERY_SECONDS: positiveInt.default(60),
    /** An external identity provider: all three, or none. */
    AUTH_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
    AUTH_ISSUER: z.string().min(1).optional(),
    AUTH_AUDIENCE: z.string().min(1).optional(),
  })
  .refine(
    (env) =>
      [env.AUTH_JWKS_URL, env.AUTH_ISSUER, env.AUTH_AUDIENCE].every((value) => value === undefined) ||
      [env.AUTH_JWKS_URL, env.AUTH_ISSUER, env.AUTH_AUDIENCE].every((value) => value !== undefined),
    { message: 'AUTH_JWKS_URL, AUTH_ISSUER and AUTH_AUDIENCE go together: set all three or none', path: ['AUTH_JWKS_URL'] },
  )
  .refine((env) => env.AUTH_ISSUER === undefined || env.AUTH_ISSUER !== env.TOKEN_ISSUER, {
    message: "must differ from TOKEN_ISSUER, which names this service's own tokens",
    path: ['AUTH_ISSUER'],
  })
  .refine((env) => env.WEB_CONCURRENCY === 1 || env.DATABASE_URL !== undefined, {
    message: 'more than one worker needs DATABASE_URL: the embedded database belongs to one process',
    path: ['WEB_CONCURRENCY'],
  })
  .refine((env) => env.DB_POOLER === 'none' || env.DATABASE_URL !== undefined, {
    message: 'names the pooler in front of DATABASE_URL, which is not set',
    path: ['DB_POOLER'],
  })
  .refine((env) => env.DB_POOLER === 'none' || !env.MIGRATE_ON_START || env.MIGRATIONS_DATABASE_URL !== undefined, {
    message:
      "behind PgBouncer, migrations need MIGRATIONS_DATABASE_URL (the database past the pooler): their lock is a session's, which transaction pooling does not keep (or set MIGRATE_ON_START=false and run `npm run migrate` with it)",
    path: ['MIGRATIONS_DATABASE_URL'],
  })
  .refine((env) => env.HTTP_HEADERS_TIMEOUT_MS <= env.HTTP_REQUEST_TIMEOUT_MS, {
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
  })
  .refine((env) => env.TOKEN_TTL_SECONDS <= env.AUTH_MAX_TOKEN_LIFETIME_SECONDS, {
    message: 'must not exceed AUTH_MAX_TOKEN_LIFETIME_SECONDS, or the service would refuse its own tokens',
    path: ['TOKEN_TTL_SECONDS'],
  })
  .refine((env) => env.AUTH_CLIENTS === undefined || env.AUTH_CLIENTS_FILE === undefined, {
    message: 'set AUTH_CLIENTS or AUTH_CLIENTS_FILE, not both',
    path: ['AUTH_CLIENTS'],
  })
  .transform((env) => ({
    ...env,
    SHUTDOWN_DRAIN_SECONDS: env.SHUTDOWN_DRAIN_SECONDS ?? (env.NODE_ENV === 'production' ? PRODUCTION_DRAIN_SECONDS : 0),
    WEBHOOK_ALLOW_PRIVATE_TARGETS: env.WEBHOOK_ALLOW_PRIVATE_TARGETS ?? env.NODE_ENV !== 'production',
  }));

export type Config = Readonly<z.infer<typeof environmentSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * What production must be told, each named at once: an operator fixing a
 * deployment learns every missing setting from one failed start, not one per
 * restart. (Whether the files can be read is checked at start, all at once:
 * config-files.ts, refuseUnreadableConfigFiles.)
 */
function missingInProduction(env: Readonly<Record<string, string | undefined>>, needs: ConfigNeeds): string[] {
  if (env.NODE_ENV !== 'production') return [];
  if (needs !== 'service') return missingDatabase(env, needs);
  const missing: string[] = [];
  if (env.AUTH_SIGNING_KEY_FILE === undefined) {
    missing.push('AUTH_SIGNING_KEY_FILE: NODE_ENV=production needs the private key tokens are signed with (make one with `npm run key:new -- --out FILE`)');
  }
  if (env.SECRETS_ENCRYPTION_KEY_FILE === undefined) {
    missing.push(
      'SECRETS_ENCRYPTION_KEY_FILE: NODE_ENV=production needs the keyring webhook and session secrets are encrypted with (make one with `npm run secrets:key:new -- --out FILE`)',
    );
  }
  if (env.AUTH_CLIENTS_FILE === undefined && env.AUTH_CLIENTS === undefined) {
    missing.push('AUTH_CLIENTS_FILE: NODE_ENV=production needs the API clients, in AUTH_CLIENTS_FILE or AUTH_CLIENTS (add one with `npm run client:new`)');
  }
  if ((env.PAYMENT_PROCESSOR ?? 'sandbox') === 'sandbox' && !['true', '1'].includes(env.ALLOW_SANDBOX_PROCESSOR ?? '')) {
    missing.push(
      'PAYMENT_PROCESSOR: NODE_ENV=production would take payments with the sandbox processor, which moves no money (ALLOW_SANDBOX_PROCESSOR=true starts with it anyway, e.g. for staging)',
    );
  }
  return [...missing, ...missingDatabase(env, needs)];
}

function missingDatabase(env: Readonly<Record<string, string | undefined>>, needs: ConfigNeeds): string[] {
  if (env.DATABASE_URL !== undefined || ['true', '1'].includes(env.ALLOW_EMBEDDED_DATABASE ?? '')) return [];
  // The migrations run on MIGRATIONS_DATABASE_URL when it is set; every other use of the database is DATABASE_URL's.
  if (needs === 'migrations' && env.MIGRATIONS_DATABASE_URL !== undefined) return [];
  return [
    'DATABASE_URL: NODE_ENV=production needs a PostgreSQL server; the embedded database serves one process and is for development (ALLOW_EMBEDDED_DATABASE=true starts on it anyway)',
  ];
}

/**
 * What the caller will use: the whole service; or only the database, as the
 * migrations (DATABASE_URL or MIGRATIONS_DATABASE_URL) and the login release
 * (DATABASE_URL) do, which must run without the signing key, the keyring,
 * the clients and the processor they never touch.
 */
export type ConfigNeeds = 'service' | 'migrations' | 'database';

export function loadConfig(env: NodeJS.ProcessEnv = process.env, needs: ConfigNeeds = 'service'): Config {
  // An empty variable means "not set": `.env.example` lists optional ones empty.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = environmentSchema.safeParse(present);
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)),
    ...missingInProduction(present, needs),
  ];
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(
      `Invalid configuration (${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}):\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
    );
  }
  return Object.freeze(parsed.data);
}
