import type { ModuleDescriptor, ModuleParts } from '../../../src/api/module';
import { API_OPERATIONS } from '../../../src/api-operations';
import { buildModules, MODULES } from '../../../src/modules';
import { SandboxProcessor } from '../../../src/payment-processor/sandbox-processor';
import { loadConfig } from '../../../src/platform/config';
import { createLogger } from '../../../src/platform/logger';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * One list of modules (src/modules.ts) registers a feature or a flow for
 * everything: the operations, the services, the worker's background work
 * and the sandbox clock's rules all come from it, so a timed rule cannot be
 * registered for one and forgotten by another (before, a rule missing from
 * the clock's own list silently never ran on an advanced clock).
 */
let db: TestDatabase;
let parts: ModuleParts;
beforeAll(async () => {
  db = await openTestDatabase();
  const defaults = loadConfig({ NODE_ENV: 'test' });
  parts = {
    db: db.knex,
    processor: new SandboxProcessor(db.knex, { latencyMs: 0, refundSettlesAfterMs: 0 }),
    logger: createLogger({ level: 'silent' }),
    settings: {
      paymentCurrencies: defaults.PAYMENT_CURRENCIES,
      sessionSecretTtlSeconds: defaults.SESSION_SECRET_TTL_SECONDS,
      maxCardsPerCustomer: defaults.MAX_CARDS_PER_CUSTOMER,
      captureWindowSeconds: defaults.CAPTURE_WINDOW_SECONDS,
      processingRecoverySeconds: defaults.PROCESSING_RECOVERY_SECONDS,
      refundWindowDays: defaults.REFUND_WINDOW_DAYS,
      intentExpiryHours: defaults.INTENT_EXPIRY_HOURS,
      overcaptureMaxPercent: defaults.OVERCAPTURE_MAX_PERCENT,
      webhookAllowPrivateTargets: true,
      webhookMaxEndpointsPerLocation: 16,
      webhookDelivery: { retryScheduleSeconds: [5], timeoutMs: 1000, pollIntervalMs: 1000, concurrency: 4, disableAfterMs: 1000, allowPrivateTargets: true },
    },
  };
});
afterAll(() => db.close());

const modules = MODULES as readonly ModuleDescriptor[];

it('the sandbox clock runs every timed rule of every module, and the worker sweeps each on real time', () => {
  const { services, background } = buildModules(parts);
  const declared = modules.flatMap((module) => module.timedRules?.((services as Record<string, unknown>)[module.key], parts) ?? []).map((rule) => rule.what);
  expect(declared).toEqual([
    'unpaid payment intents expired',
    'authorizations past their capture window voided',
    'payment intents left PROCESSING settled',
    'unfinished setup intents expired',
    'setup intents left PROCESSING settled',
    'PENDING refunds settled',
    "sandbox dispute cards' disputes opened",
    'disputes past their deadline moved',
    'disputes decided',
    "chargebacks' funds withdrawn",
    'business days closed',
    'payouts moved on',
  ]);
  expect(services.sandboxClock?.rules.map((rule) => rule.what)).toEqual(declared);
  // A sweep per rule, the webhook dispatcher and the sandbox clock's sweep.
  expect(background).toHaveLength(declared.length + 2);
});

it('the operations are every module’s, in the list’s order, each module under its own key', () => {
  expect(API_OPERATIONS).toEqual(modules.flatMap((module) => module.operations));
  const { services } = buildModules(parts);
  expect(Object.keys(services)).toEqual(modules.map((module) => module.key));
  expect(new Set(modules.map((module) => module.key)).size).toBe(modules.length);
});

it('no sandbox clock, and none of its work, with another processor', () => {
  const other = { ...parts, processor: Object.assign(Object.create(parts.processor) as SandboxProcessor, { name: 'another' }) };
  const { services, background } = buildModules({ ...other, settings: { ...parts.settings, webhookDelivery: undefined } } as ModuleParts);
  expect(services.sandboxClock).toBeUndefined();
  // A sweep per timed rule (eleven: the sandbox's dispute cards are the sandbox's), and neither the dispatcher nor the clock's sweep.
  expect(background).toHaveLength(11);
});
