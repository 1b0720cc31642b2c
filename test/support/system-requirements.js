// What `npm run test:system` needs, said before any test runs rather than as
// a failure in the middle of one.
const { Client } = require('pg');

module.exports = async function systemRequirements() {
  const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres', connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    throw new Error(
      `npm run test:system needs a PostgreSQL server at 127.0.0.1:5432 that the postgres user reaches without a password (${error.message}). ` +
        'On Debian: apt-get install -y postgresql, then trust local TCP connections for postgres in pg_hba.conf. `npm test` needs none of it.',
      { cause: error },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
};
