import 'dotenv/config';
import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { createAuth } from './auth/auth';
import { loadConfig } from './platform/config';
import { databaseOptionsFrom, openDatabase } from './platform/db/database';
import { migrateToLatest } from './platform/db/migration-source';
import { createLogger } from './platform/logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.LOG_LEVEL });
  // Keys and clients first: a production misconfiguration stops start-up before anything opens.
  const auth = await createAuth(config);
  const { knex, kind } = openDatabase(databaseOptionsFrom(config));
  if (config.MIGRATE_ON_START) {
    const applied = await migrateToLatest(knex);
    logger.info({ applied }, 'migrations applied');
  }

  const server = createApp({
    db: knex,
    logger,
    auth,
    settings: {
      paymentCurrencies: config.PAYMENT_CURRENCIES,
      sessionSecretTtlSeconds: config.SESSION_SECRET_TTL_SECONDS,
      corsAllowedOrigins: config.CORS_ALLOWED_ORIGINS,
    },
  }).listen(config.PORT, config.HOST, () => {
    // The bound port, which differs from PORT when PORT=0 asks for any free one.
    const { port } = server.address() as AddressInfo;
    logger.info({ port, host: config.HOST, database: kind }, 'listening');
  });

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void knex.destroy().then(() => process.exit(0));
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  // The logger may not exist yet (a bad configuration): say why on stderr and stop.
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
