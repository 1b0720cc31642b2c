import { databaseStartupProblem, maskedDatabaseUrl } from '../../../src/platform/db/startup-database-error';

/** Issue 38: an unreachable or missing database printed only the driver's words, without naming DATABASE_URL. */
describe('databaseStartupProblem', () => {
  const settings = { DATABASE_URL: 'postgres://payments:s3cret-pass@db.internal:5432/payments' };

  it('names DATABASE_URL with its password masked, and what to check, when the server cannot be reached', () => {
    const problem = databaseStartupProblem(Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:5432'), { code: 'ECONNREFUSED' }), settings);
    expect(problem).toBe(
      'DATABASE_URL postgres://payments:****@db.internal:5432/payments: the database server cannot be reached (ECONNREFUSED). Check the host and port, that PostgreSQL is running and accepts TCP connections there (listen_addresses), and any firewall between.',
    );
    expect(problem).not.toContain('s3cret-pass');
  });

  it('says how to make a missing database, and names MIGRATIONS_DATABASE_URL when that is the one used', () => {
    const missing = Object.assign(new Error('database "payments" does not exist'), { code: '3D000' });
    expect(databaseStartupProblem(missing, settings)).toMatch(
      /^DATABASE_URL postgres:\/\/payments:\*\*\*\*@db.internal:5432\/payments: database "payments" does not exist\. Create it/,
    );
    expect(databaseStartupProblem(missing, { ...settings, MIGRATIONS_DATABASE_URL: 'postgres://owner:pw@db.internal:5432/payments' })).toMatch(
      /^MIGRATIONS_DATABASE_URL postgres:\/\/owner:\*\*\*\*@db.internal/,
    );
  });

  it('points at the credentials for a refused login, and leaves other errors alone', () => {
    expect(databaseStartupProblem(Object.assign(new Error('password authentication failed for user "payments"'), { code: '28P01' }), settings)).toMatch(
      /refused the login .*pg_hba\.conf/,
    );
    expect(databaseStartupProblem(new Error('something else'), settings)).toBeUndefined();
    expect(databaseStartupProblem(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }), {})).toBeUndefined();
  });

  it('masks the password of several hosts or none', () => {
    expect(maskedDatabaseUrl('postgres://u:p@h1:1,h2:2/db?target_session_attrs=read-write')).toBe(
      'postgres://u:****@h1:1,h2:2/db?target_session_attrs=read-write',
    );
    expect(maskedDatabaseUrl('postgres://u@h/db')).toBe('postgres://u@h/db');
  });
});
