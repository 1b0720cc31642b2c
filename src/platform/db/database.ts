import { mkdirSync } from 'node:fs';
import path from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type { Config } from '../config';
import { createLogger, type Logger } from '../logger';
import { trackConnections } from './abandoned-work';
import { lockDataDir } from './data-dir-lock';
import { migrationSource } from './migration-source';
import { databaseHostsOf } from './database-hosts';
import { classifyDatabaseError } from './database-errors';
import { PrimaryFinder } from './primary-finder';
import { pgDriver, pgliteDriver, withSqlDriver } from './sql-driver';

export type DatabaseKind = 'postgres' | 'pglite';

export interface DatabaseOptions {
  /** A PostgreSQL server. When unset, an embedded PostgreSQL (PGlite). */
  databaseUrl?: string;
  /** Where PGlite keeps its files; unset means in memory (tests). */
  dataDir?: string;
  /** An in-memory PGlite starts from this copy of a data folder (PGlite's dumpDataDir), e.g. one already migrated (the tests' template). */
  pgliteTemplate?: Blob;
  /**
   * PGlite's shared_buffers (PostgreSQL's 128MB when unset). PGlite clears
   * them at every start, so the tests' small databases start faster with
   * fewer (docs/performance.md, the test suite's time).
   */
  pgliteSharedBuffers?: string;
  poolMax: number;
  acquireTimeoutMs: number;
  statementTimeoutMs: number;
  /** Schemas to search first; tests isolate each file in its own schema. */
  searchPath?: string[];
  /**
   * PgBouncer in transaction pooling mode stands in front of `databaseUrl`:
   * statements run unnamed, and no session setting is sent at connect
   * (PgBouncer 1.18 refuses an unknown startup parameter; it would not
   * outlive the transaction anyway).
   */
  behindPgBouncer?: boolean;
  /** Where Knex's own warnings go (a lost connection, a failed acquire), as JSON lines; the service's format at warn when omitted. */
  logger?: Logger;
}

export interface Database {
  knex: Knex;
  kind: DatabaseKind;
}

/** The database the configuration names: the server at DATABASE_URL, else PGlite under DATA_DIR. */
export function databaseOptionsFrom(config: Config, logger?: Logger): DatabaseOptions {
  return {
    ...(logger === undefined ? {} : { logger }),
    databaseUrl: config.DATABASE_URL,
    dataDir: path.resolve(config.DATA_DIR, 'pglite'),
    poolMax: config.DB_POOL_MAX,
    acquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    behindPgBouncer: config.DB_POOLER === 'pgbouncer',
  };
}

/** Where migrations run: past the pooler when there is one (their advisory lock is a session's). */
export function migrationDatabaseOptionsFrom(config: Config, logger?: Logger): DatabaseOptions {
  const options = databaseOptionsFrom(config, logger);
  if (config.MIGRATIONS_DATABASE_URL === undefined) return options;
  return { ...options, databaseUrl: config.MIGRATIONS_DATABASE_URL, behindPgBouncer: false };
}

/**
 * How much longer than statement_timeout the client waits for a query's
 * answer before giving up on its own: the server cancels a slow statement
 * first, so only an answer lost on the network (a stalled or dropping
 * network, a server gone without a word) reaches this.
 */
const CLIENT_QUERY_TIMEOUT_MARGIN_MS = 1000;
/** Idle connections are probed after this long, so a peer that vanished is noticed without a query. */
const TCP_KEEPALIVE_IDLE_MS = 10_000;

/**
 * A pooled connection may be handed out only when it waits for nothing: one
 * whose last query the client gave up on (query_timeout) still waits for that
 * answer, and every later query would queue behind it for ever. The pool
 * destroys a connection that fails this check (pg ends it by dropping the
 * socket) and opens a fresh one.
 */
function isReadyForQuery(connection: { readyForQuery?: boolean }): boolean {
  return connection.readyForQuery === true;
}

function postgresConfig(databaseUrl: string, options: DatabaseOptions): Knex.Config {
  const pooled = options.behindPgBouncer === true;
  const hosts = databaseHostsOf(databaseUrl);
  // Several hosts, or a session to insist on: each new connection goes to the host PrimaryFinder finds.
  const finder = hosts.urls.length > 1 || hosts.target !== 'any' ? new PrimaryFinder(hosts, options.acquireTimeoutMs, options.logger) : undefined;
  const settings = {
    application_name: 'customer-payment-profiles',
    // Behind PgBouncer the role's own statement_timeout applies (docs/deployment.md, PgBouncer).
    ...(pooled ? {} : { statement_timeout: options.statementTimeoutMs }),
    query_timeout: options.statementTimeoutMs + CLIENT_QUERY_TIMEOUT_MARGIN_MS,
    // A server that does not answer a connect attempt must not hold a request
    // for longer than the pool would wait anyway.
    connectionTimeoutMillis: options.acquireTimeoutMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: TCP_KEEPALIVE_IDLE_MS,
  };
  return withSqlDriver(pgDriver({ namedStatements: !pooled }), {
    client: 'pg',
    connection:
      finder === undefined
        ? { connectionString: databaseUrl, ...settings }
        : // Called again once the finder must look again (the expiration check); Knex then replaces the connections made before.
          async () => ({ connectionString: await finder.url(), ...settings, expirationChecker: () => finder.isStale }),
    // With several hosts a connection that could not be made is tried again (on the next host found) until the acquire times out.
    pool: { min: 0, max: options.poolMax, validate: isReadyForQuery, ...(finder === undefined ? {} : { propagateCreateError: false }) },
    userParams: { primaryFinder: finder },
    acquireConnectionTimeout: options.acquireTimeoutMs,
    ...(options.searchPath ? { searchPath: options.searchPath } : {}),
  });
}

function pgliteConfig(options: DatabaseOptions): Knex.Config {
  // Loaded only for the embedded database: a process on a PostgreSQL server never runs PGlite's half megabyte of code.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
  const ClientPgLite = require('knex-pglite') as typeof import('knex-pglite');
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (options.dataDir !== undefined) mkdirSync(options.dataDir, { recursive: true });
  const pglite = new PGlite({
    ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
    ...(options.pgliteTemplate === undefined ? {} : { loadDataDir: options.pgliteTemplate }),
    ...(options.pgliteSharedBuffers === undefined
      ? {}
      : { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.pgliteSharedBuffers}`] }),
  });
  // PGlite is one connection: knex-pglite fixes the pool at 1, and requests queue for it.
  return withSqlDriver(pgliteDriver, {
    client: ClientPgLite as unknown as typeof knexFactory.Client,
    connection: { pglite } as unknown as Knex.StaticConnectionConfig,
    acquireConnectionTimeout: options.acquireTimeoutMs,
    ...(options.searchPath ? { searchPath: options.searchPath } : {}),
  });
}

/**
 * Knex writes its warnings with console.log, as multi-line text with a stack
 * ("Acquire connection error: …"). They go through pino instead, one JSON line
 * each, its first line only: the stack says where in Knex, which no operator needs.
 */
function knexLog(logger: Logger): Knex.Logger {
  const log = logger.child({ component: 'knex' });
  const firstLine = (message: unknown): string => String(message).split('\n')[0] ?? '';
  return {
    warn: (message: unknown) => log.warn(firstLine(message)),
    error: (message: unknown) => log.error(firstLine(message)),
    deprecate: (method: unknown, alternative: unknown) => log.warn(`${String(method)} is deprecated; use ${String(alternative)}`),
    debug: (message: unknown) => log.debug(firstLine(message)),
  };
}

/** Knex's configuration for the server at `databaseUrl`, or for an embedded PGlite (which it starts). */
export function databaseConfig(options: DatabaseOptions): Knex.Config & { migrations: Knex.MigratorConfig } {
  const config = options.databaseUrl !== undefined ? postgresConfig(options.databaseUrl, options) : pgliteConfig(options);
  return { ...config, log: knexLog(options.logger ?? createLogger({ level: 'warn' })), migrations: { migrationSource } };
}

/**
 * With several hosts: a statement that found its server gone, shutting down
 * or read-only (a failover under way) makes the next connection look for
 * the primary again, rather than trust the host found a moment ago.
 */
function followPrimary(knex: Knex): void {
  const finder = (knex.client.config as { userParams?: { primaryFinder?: PrimaryFinder } }).userParams?.primaryFinder;
  if (finder === undefined) return;
  knex.on('query-error', (error: unknown) => {
    if (classifyDatabaseError(error) === 'SERVICE_UNAVAILABLE') finder.lookAgain();
  });
  // A connection that could not be opened (the host down, or no longer acceptable): Knex's pool (tarn) says so.
  (knex.client.pool as { on?(event: 'createFail', listener: () => void): void } | undefined)?.on?.('createFail', () => finder.lookAgain());
}

/**
 * Opens the database. An embedded one kept in a folder is locked to this
 * process first (data-dir-lock.ts), and given back when Knex is destroyed.
 */
export function openDatabase(options: DatabaseOptions): Database {
  if (options.databaseUrl !== undefined) {
    const knex = knexFactory(databaseConfig(options));
    // A request answered at its deadline, or a shutdown whose time is up, stops its work on the server (abandoned-work.ts).
    trackConnections(knex);
    followPrimary(knex);
    return { knex, kind: 'postgres' };
  }
  if (options.dataDir === undefined) return { knex: knexFactory(databaseConfig(options)), kind: 'pglite' };
  mkdirSync(options.dataDir, { recursive: true });
  const release = lockDataDir(options.dataDir);
  let knex: Knex;
  try {
    knex = knexFactory(databaseConfig(options));
  } catch (error) {
    release();
    throw error;
  }
  // knex.destroy() is read-only and hands over to its client's destroy, which may be replaced on the instance.
  const client = knex.client as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = (callback?: unknown) => destroy(callback).finally(release);
  return { knex, kind: 'pglite' };
}
