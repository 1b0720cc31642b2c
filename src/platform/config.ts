import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

const positiveInt = z.coerce.number().int().positive();

/**
 * Every environment variable the service reads, parsed once. A bad value stops
 * start-up with a message naming the variable, rather than turning into NaN or
 * a silent default somewhere deep in the code.
 */
const environmentSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** A PostgreSQL server; when unset, an embedded PostgreSQL (PGlite) under DATA_DIR. */
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  MIGRATE_ON_START: booleanFlag.default(true),
  DB_POOL_MAX: positiveInt.default(10),
  /** How long a request waits for a pooled connection before it is answered 503. */
  DB_ACQUIRE_TIMEOUT_MS: positiveInt.default(3000),
  /** PostgreSQL's statement_timeout for every pooled connection. */
  DB_STATEMENT_TIMEOUT_MS: positiveInt.default(5000),
});

export type Config = Readonly<z.infer<typeof environmentSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set": `.env.example` lists optional ones empty.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  return Object.freeze(parsed.data);
}
