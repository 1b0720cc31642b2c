import 'dotenv/config';
import { loadConfig } from './src/platform/config';
import { databaseConfig, databaseOptionsFrom } from './src/platform/db/database';

/**
 * For Knex's own CLI (`npx knex --knexfile knexfile.ts migrate:status`): the
 * database the service itself would use, with the service's migration list.
 * `npm run migrate` is the supported way to migrate.
 */
export default databaseConfig({ ...databaseOptionsFrom(loadConfig()), poolMax: 1, statementTimeoutMs: 0 });
