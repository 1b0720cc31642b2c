import { loadConfig } from '../../../src/platform/config';
import { databaseOptionsFrom, migrationDatabaseOptionsFrom } from '../../../src/platform/db/database';

/** DB_POOLER and MIGRATIONS_DATABASE_URL: behind PgBouncer, migrations go past it, and the pool is told. */
const SERVER = 'postgres://service@db.internal:5432/payments';
const POOLER = 'postgres://service@pgbouncer.internal:6432/payments';

describe('the database behind PgBouncer', () => {
  it('is direct by default: the pool and the migrations use DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: SERVER });
    expect(config.DB_POOLER).toBe('none');
    expect(databaseOptionsFrom(config)).toMatchObject({ databaseUrl: SERVER, behindPgBouncer: false });
    expect(migrationDatabaseOptionsFrom(config)).toMatchObject({ databaseUrl: SERVER, behindPgBouncer: false });
  });

  it('with DB_POOLER=pgbouncer, pools through DATABASE_URL and migrates over MIGRATIONS_DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: POOLER, DB_POOLER: 'pgbouncer', MIGRATIONS_DATABASE_URL: SERVER });
    expect(databaseOptionsFrom(config)).toMatchObject({ databaseUrl: POOLER, behindPgBouncer: true });
    expect(migrationDatabaseOptionsFrom(config)).toMatchObject({ databaseUrl: SERVER, behindPgBouncer: false });
  });

  it('refuses to migrate at start through the pooler, and a pooler without a database', () => {
    expect(() => loadConfig({ DATABASE_URL: POOLER, DB_POOLER: 'pgbouncer' })).toThrow(/MIGRATIONS_DATABASE_URL: behind PgBouncer, migrations need/);
    expect(loadConfig({ DATABASE_URL: POOLER, DB_POOLER: 'pgbouncer', MIGRATE_ON_START: 'false' })).toMatchObject({ MIGRATE_ON_START: false });
    expect(() => loadConfig({ DB_POOLER: 'pgbouncer' })).toThrow(/DB_POOLER: names the pooler in front of DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: SERVER, DB_POOLER: 'pgpool' })).toThrow(/DB_POOLER/);
  });
});
