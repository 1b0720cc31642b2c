import type { Knex } from 'knex';
import type { PaymentProcessor } from '../payment-processor/payment-processor';
import { poolIsBusy } from '../platform/db/pool-pressure';
import { RepeatingTask } from '../platform/lifecycle/repeating-task';
import type { Logger } from '../platform/logger';
import type { Operation } from './operation';
import type { ServiceSettings } from './service-settings';

/** What a module's builder and its background work are given: the database, the processor, the logger and the settings. */
export interface ModuleParts {
  db: Knex;
  processor: PaymentProcessor;
  logger: Logger;
  settings: ServiceSettings;
}

/**
 * A rule bound to time, such as the capture window or an intent's expiry:
 * it moves what is due and answers how many records it moved (0 when none
 * was). The worker runs it for every location on real time every `everyMs`;
 * the sandbox clock runs it for one location on that location's clock, on
 * each advance and on every advanced clock between (src/flows/sandbox-clock).
 * A rule declared once serves both, so none can be forgotten by either.
 */
export interface TimedRule {
  /** What the log line says it did ("unpaid payment intents expired"). */
  what: string;
  everyMs: number;
  /** Run once when the process starts, too (the recovery of work a dead process left). */
  atStart: boolean;
  /** The location whose clock it runs on; undefined: every location, on real time. */
  run(db: Knex, locationId?: string): Promise<number>;
}

/** Work a process does beside the requests, started after it listens and stopped before the pool closes. */
export interface BackgroundWork {
  start(): void;
  stop(): Promise<void>;
}

/**
 * A feature or a flow, as the app, the worker, the document and the sandbox
 * clock see it: adding one is a folder with a `*.module.ts` and one line in
 * src/modules.ts. `layer` and `reaches` are the import rules
 * (.dependency-cruiser.cjs reads them from the same list).
 */
export interface ModuleDescriptor<Key extends string = string, Service = unknown> {
  /** The name its handlers find its service under (`{ customers }`). */
  key: Key;
  /** Its folder under src/. */
  folder: string;
  /** A feature keeps its own records; a flow spans features (and reaches them through their index.ts). */
  layer: 'feature' | 'flow';
  /** For a feature: the features below it it may reach, through their index.ts. */
  reaches?: readonly string[];
  /** For a feature: the tables it keeps; its SQL touches these alone, but for its `crossings`. */
  tables?: readonly string[];
  /**
   * Where one round trip across two features' tables is worth it, declared
   * once with the reason: a feature's SQL naming another's table without
   * an entry here fails test/integration/platform/sql-crossings.test.ts.
   */
  crossings?: readonly SqlCrossing[];
  /** Its service (or flow), built once for the process; `timedRules` are every module's before it in the list. */
  build(parts: ModuleParts, timedRules: readonly TimedRule[]): Service;
  /** Its /v1 operations, handled by its service (and those of the modules they name). */
  operations: readonly Operation<never>[];
  /** Its rules bound to time (see TimedRule). */
  timedRules?(service: Service, parts: ModuleParts): TimedRule[];
  /** Work of its own beside the requests (the webhook dispatcher, the sandbox clock's sweep). */
  background?(service: Service, parts: ModuleParts): BackgroundWork[];
}

/** A statement of a feature that reads or writes another feature's table, and why one round trip is worth it. */
export interface SqlCrossing {
  table: string;
  why: string;
}

/** Declares a module, keeping its key's and service's types for the registry's ApiServices. */
export function defineModule<Key extends string, Service>(descriptor: ModuleDescriptor<Key, Service>): ModuleDescriptor<Key, Service> {
  return Object.freeze(descriptor);
}

/**
 * A timed rule run for every location on real time, every `everyMs`, by
 * each replica (every move it makes is guarded, so several at once act
 * once). A turn is skipped while requests wait for a database connection:
 * the rules never take one a request needs.
 */
export function ruleSweep(rule: TimedRule, db: Knex, logger: Logger): BackgroundWork {
  const task = new RepeatingTask(logger, rule.what, rule.everyMs, () => (poolIsBusy(db) ? Promise.resolve(0) : rule.run(db)));
  return { start: () => task.start({ atStart: rule.atStart }), stop: () => task.stop() };
}
