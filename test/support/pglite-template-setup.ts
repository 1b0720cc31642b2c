import { existsSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { openDatabase } from '../../src/platform/db/database';
import { migrateToLatest } from '../../src/platform/db/migration-source';
import { createLogger } from '../../src/platform/logger';
import { saveTemplate, templatePath, withoutDatabases } from './pglite-template';

/**
 * Part of the global set-up for `npm test` (global-setup.ts): the migrated template every test
 * file's embedded database starts from (pglite-template.ts), made if missing.
 * Made with DATABASE_URL set too: the process tests' services run the
 * embedded database whatever the suite's, and start from a copy of it.
 */
export default async function makePgliteTemplate(): Promise<void> {
  if (existsSync(templatePath())) return;
  const { knex } = openDatabase({ poolMax: 1, acquireTimeoutMs: 60_000, statementTimeoutMs: 60_000, logger: createLogger({ level: 'silent' }) });
  try {
    await migrateToLatest(knex);
    const pglite = (knex.client as { config: { connection: { pglite: PGlite } } }).config.connection.pglite;
    const templates = await knex('pg_database').select<{ oid: number }[]>(knex.raw('oid::int as oid')).whereIn('datname', ['template0', 'template1']);
    // Uncompressed: larger on disk, but each copy starts without gunzipping it first.
    const dump = Buffer.from(await (await pglite.dumpDataDir('none')).arrayBuffer());
    saveTemplate(
      withoutDatabases(
        dump,
        templates.map(({ oid }) => oid),
      ),
    );
  } finally {
    await knex.destroy();
  }
}
