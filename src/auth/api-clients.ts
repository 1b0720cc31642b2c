import { z } from 'zod';
import type { Config } from '../platform/config';
import { ConfigError } from '../platform/config';
import { readConfigFile } from '../platform/config-files';
import { hashClientSecret, isClientSecretHash } from './client-secret';
import { ALL_LOCATIONS, SCOPES } from './scopes';

export const DEV_CLIENT_ID = 'local-dev-client';
export const DEV_CLIENT_SECRET = 'local-dev-secret';

export const apiClientSchema = z.strictObject({
  clientId: z.string().regex(/^[A-Za-z0-9._-]{3,128}$/, { message: 'must be 3 to 128 of [A-Za-z0-9._-]' }),
  secretHash: z.string().refine(isClientSecretHash, { message: 'must be a scrypt hash from `npm run client:new`' }),
  scopes: z.array(z.enum(SCOPES)).min(1),
  /** Location ids the client may act for, or ["*"] for all. */
  locations: z.array(z.string().min(1).max(255)).min(1),
});

export type ApiClient = z.infer<typeof apiClientSchema>;

const apiClientListSchema = z.array(apiClientSchema).superRefine((clients, context) => {
  const seen = new Set<string>();
  for (const [index, client] of clients.entries()) {
    if (seen.has(client.clientId)) {
      context.addIssue({ code: 'custom', path: [index, 'clientId'], message: `${client.clientId} is listed twice` });
    }
    seen.add(client.clientId);
  }
});

function parseClients(json: string, source: string): ApiClient[] {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    throw new ConfigError(`${source} is not valid JSON`);
  }
  const parsed = apiClientListSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `[${issue.path.join('.')}] ${issue.message}`);
    throw new ConfigError(`${source}: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/**
 * The API clients from AUTH_CLIENTS_FILE or AUTH_CLIENTS. Outside production,
 * with none configured, the one development client (every scope, every
 * location). In production the development client is refused, and so is an
 * empty list: the service would be unusable, or open.
 */
export async function loadApiClients(config: Config): Promise<ApiClient[]> {
  const clients =
    config.AUTH_CLIENTS_FILE !== undefined
      ? parseClients(readClientsFile(config.AUTH_CLIENTS_FILE), 'AUTH_CLIENTS_FILE')
      : config.AUTH_CLIENTS !== undefined
        ? parseClients(config.AUTH_CLIENTS, 'AUTH_CLIENTS')
        : [];

  if (config.NODE_ENV === 'production') {
    if (clients.length === 0) throw new ConfigError('NODE_ENV=production needs API clients: set AUTH_CLIENTS_FILE or AUTH_CLIENTS');
    if (clients.some((client) => client.clientId === DEV_CLIENT_ID)) {
      throw new ConfigError(`NODE_ENV=production refuses the development client ${DEV_CLIENT_ID}`);
    }
    return clients;
  }
  if (clients.length > 0) return clients;
  return [
    {
      clientId: DEV_CLIENT_ID,
      secretHash: await hashClientSecret(DEV_CLIENT_SECRET),
      scopes: [...SCOPES],
      locations: [ALL_LOCATIONS],
    },
  ];
}

function readClientsFile(path: string): string {
  return readConfigFile('AUTH_CLIENTS_FILE', path);
}
