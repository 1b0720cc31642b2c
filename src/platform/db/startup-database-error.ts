/** A connection string with its password replaced, fit for a log line or a terminal. */
export function maskedDatabaseUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@]*@/i, '$1****@');
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET', 'EAI_AGAIN']);

/**
 * What an operator should check when the database stops the service from
 * starting (migrations, the first query): the setting that names it, with
 * its password masked, and the likely fix; undefined for any other error.
 * A bare `connect ECONNREFUSED 127.0.0.1:5432` said neither.
 */
export function databaseStartupProblem(
  error: unknown,
  settings: { DATABASE_URL?: string | undefined; MIGRATIONS_DATABASE_URL?: string | undefined },
): string | undefined {
  const { code, message } = error as { code?: string; message?: string };
  const url = settings.MIGRATIONS_DATABASE_URL ?? settings.DATABASE_URL;
  if (url === undefined) return undefined;
  const variable = settings.MIGRATIONS_DATABASE_URL !== undefined ? 'MIGRATIONS_DATABASE_URL' : 'DATABASE_URL';
  const named = `${variable} ${maskedDatabaseUrl(url)}`;
  if (code !== undefined && UNREACHABLE.has(code)) {
    return `${named}: the database server cannot be reached (${code}). Check the host and port, that PostgreSQL is running and accepts TCP connections there (listen_addresses), and any firewall between.`;
  }
  if (code === '3D000') {
    return `${named}: ${message ?? 'the database does not exist'}. Create it on that server (createdb, or CREATE DATABASE) or name an existing one in the URL's path.`;
  }
  if (code === '28P01' || code === '28000') {
    return `${named}: the server refused the login (${message ?? code}). Check the user and password in the URL, and that pg_hba.conf lets this host connect as that user.`;
  }
  if (code === '42P01') {
    return `${named}: the database lacks this version's tables (${message ?? code}). Apply the migrations first: \`npm run migrate:prod\`, or start one process with MIGRATE_ON_START=true.`;
  }
  if (/timeout|Connection terminated/i.test(message ?? '')) {
    return `${named}: the database server did not answer in time (${message}). Check that it is up and reachable; DB_ACQUIRE_TIMEOUT_MS bounds the wait.`;
  }
  return undefined;
}
