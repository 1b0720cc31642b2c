// Creates or drops one database on a PostgreSQL server, for the CI run on a
// fresh database: node .ci/postgres-database.js create|drop <server-url> <name>
const { Client } = require('pg');

async function main() {
  const [action, serverUrl, name] = process.argv.slice(2);
  if (!['create', 'drop'].includes(action) || !serverUrl || !/^[a-z0-9_]+$/.test(name ?? '')) {
    throw new Error('usage: postgres-database.js create|drop <server-url> <name>');
  }
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(action === 'create' ? `create database ${name}` : `drop database if exists ${name} with (force)`);
    console.log(`::: ${action === 'create' ? 'created' : 'dropped'} database ${name}`);
  } finally {
    await client.end();
  }
}

main().catch((error) => {
  console.error(`::: ${error.message}`);
  process.exit(1);
});
