import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashClientSecret } from '../src/auth/client-secret';
import { SCOPES } from '../src/auth/scopes';
import { newSigningJwk } from '../src/auth/signing-keys';
import { withNewKey } from '../src/platform/secrets/secret-box';
import { freePort, startServer, type RunningServer } from './processes';

const ROOT = path.resolve(__dirname, '..');
const ISSUER = 'urn:customer-payment-profiles:bench';
const AUDIENCE = 'customer-payment-profiles';
const CLIENT_ID = 'bench-client';
const CLIENT_SECRET = 'bench-client-secret-0123456789';

/** The production set-up's secrets for one run: a fresh signing key and one API client with every scope. */
export interface BenchCredentials {
  keyFile: string;
  secretsKeyringFile: string;
  clients: string;
}

export async function benchCredentials(resultsDir: string): Promise<BenchCredentials> {
  const keyFile = path.join(resultsDir, 'bench-signing-key.json');
  writeFileSync(keyFile, JSON.stringify(await newSigningJwk()), { mode: 0o600 });
  const secretsKeyringFile = path.join(resultsDir, 'bench-secrets-keyring.json');
  writeFileSync(secretsKeyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
  const clients = [
    {
      clientId: CLIENT_ID,
      secretHash: await hashClientSecret(CLIENT_SECRET),
      scopes: [...SCOPES],
      locations: ['*'],
    },
  ];
  return { keyFile, secretsKeyringFile, clients: JSON.stringify(clients) };
}

export interface ServiceSettings {
  databaseUrl: string;
  credentials: BenchCredentials;
  resultsDir: string;
  webConcurrency: number;
  /** Rate limiting stays on (its cost is measured) with a budget the benchmark never spends. */
  rateLimitRequests: number;
  extraEnv?: Record<string, string>;
  /** Options for node itself, such as --cpu-prof. */
  nodeArgs?: string[];
  /** Another node binary than this process's (--compare-node). */
  nodeBinary?: string;
  /** Which of the services running at once this is (a --growth run's sizes): it names the log file. */
  label?: string;
}

/**
 * How the Dockerfile runs node: the NODE_OPTIONS it sets, the flags its CMD
 * gives node before the script (V8 flags NODE_OPTIONS refuses), and the
 * allocator it preloads (LD_PRELOAD, MALLOC_CONF), so the service runs here as
 * it would in its image.
 */
export function dockerfileNode(): { nodeOptions: string; flags: string[]; allocator: { LD_PRELOAD: string; MALLOC_CONF: string } } {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const nodeOptions = /NODE_OPTIONS="([^"]*)"/.exec(dockerfile)?.[1] ?? '';
  // The exec form, ["node", ...flags, "dist/src/server.js"]; HEALTHCHECK's indented CMD is not matched.
  const command = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  const words = command === undefined ? [] : (JSON.parse(command) as string[]);
  // Read wrong, the bench would measure the service without the image's flags and say nothing.
  if (words[0] !== 'node' || words.at(-1) !== 'dist/src/server.js') throw new Error('the Dockerfile\'s CMD is not ["node", ...flags, "dist/src/server.js"]');
  const preload = /^\s*LD_PRELOAD=(\S+)/m.exec(dockerfile)?.[1];
  const mallocConf = /^\s*MALLOC_CONF=(\S+)/m.exec(dockerfile)?.[1];
  if (preload === undefined || mallocConf === undefined) throw new Error("the Dockerfile's ENV sets no LD_PRELOAD or MALLOC_CONF");
  return { nodeOptions, flags: words.slice(1, -1), allocator: { LD_PRELOAD: preload, MALLOC_CONF: mallocConf } };
}

/** Where this host keeps a shared library the image preloads (Debian's multiarch folder, or /usr/local/lib as in the image). */
function hostLibrary(imagePath: string): string {
  const file = path.basename(imagePath);
  const triplets: Partial<Record<string, string>> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };
  const triplet = triplets[process.arch];
  const found = [triplet === undefined ? undefined : `/usr/lib/${triplet}/${file}`, `/usr/local/lib/${file}`].find(
    (candidate) => candidate !== undefined && existsSync(candidate),
  );
  if (found === undefined) throw new Error(`the image preloads ${file}, which this host lacks: apt-get install libjemalloc2`);
  return found;
}

/**
 * The service as the Dockerfile runs it: `node dist/src/server.js` with its
 * CMD's node flags and NODE_OPTIONS, production mode, logging at info to a file, metrics on, every
 * middleware on.
 */
export async function startService(settings: ServiceSettings): Promise<RunningServer> {
  const { nodeOptions, flags, allocator } = dockerfileNode();
  return startServer({
    name: `service (WEB_CONCURRENCY=${settings.webConcurrency}${settings.label ? `, ${settings.label}` : ''})`,
    args: [...flags, ...(settings.nodeArgs ?? []), path.join(ROOT, 'dist/src/server.js')],
    env: {
      NODE_ENV: 'production',
      // The only payment processor there is yet.
      ALLOW_SANDBOX_PROCESSOR: 'true',
      // A day, as the hand-written confirm sets: the capture window's sweep must not void the confirm scenario's authorizations mid-run.
      CAPTURE_WINDOW_SECONDS: '86400',
      DATABASE_URL: settings.databaseUrl,
      AUTH_SIGNING_KEY_FILE: settings.credentials.keyFile,
      SECRETS_ENCRYPTION_KEY_FILE: settings.credentials.secretsKeyringFile,
      AUTH_CLIENTS: settings.credentials.clients,
      TOKEN_ISSUER: ISSUER,
      TOKEN_AUDIENCE: AUDIENCE,
      LOG_LEVEL: 'info',
      METRICS_PORT: String(await freePort()),
      WEB_CONCURRENCY: String(settings.webConcurrency),
      RATE_LIMIT_REQUESTS: String(settings.rateLimitRequests),
      NODE_OPTIONS: nodeOptions,
      LD_PRELOAD: hostLibrary(allocator.LD_PRELOAD),
      MALLOC_CONF: allocator.MALLOC_CONF,
      ...settings.extraEnv,
    },
    port: await freePort(),
    logFile: path.join(
      settings.resultsDir,
      `service-${settings.webConcurrency}${settings.nodeBinary ? '-other-node' : ''}${settings.label ? `-${settings.label}` : ''}.log`,
    ),
    listeners: settings.webConcurrency,
    ...(settings.nodeBinary ? { nodeBinary: settings.nodeBinary } : {}),
  });
}

export async function accessToken(service: RunningServer): Promise<string> {
  const response = await fetch(`${service.url}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET }),
  });
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: { accessToken: string } }).token.accessToken;
}

function ceiling(file: string): string[] {
  // tsx compiles the ceiling once at start; it runs as plain JavaScript after that.
  return ['--import', 'tsx', path.join(__dirname, 'ceilings', file)];
}

/** Ceiling (a): scenario 1's answer, from memory. */
export async function startBareExpress(resultsDir: string, body: string): Promise<RunningServer> {
  return startServer({
    name: 'ceiling (a) bare Express',
    args: ceiling('bare-express.ts'),
    env: { NODE_ENV: 'production', CEILING_BODY: body },
    port: await freePort(),
    logFile: path.join(resultsDir, 'ceiling-a.log'),
  });
}

/** Ceiling (b) and the hand-written writes: jose ES256 + the service's SQL over a pg Pool of the same size. */
export async function startHandWritten(
  resultsDir: string,
  databaseUrl: string,
  jwks: string,
  poolMax: number,
  nodeArgs: string[] = [],
  /** As ServiceSettings' label: which of the floors running at once this is. */
  label?: string,
): Promise<RunningServer> {
  return startServer({
    name: `ceiling (b) hand-written${label ? `, ${label}` : ''}`,
    args: [...nodeArgs, ...ceiling('hand-written-server.ts')],
    env: {
      NODE_ENV: 'production',
      DATABASE_URL: databaseUrl,
      DB_POOL_MAX: String(poolMax),
      CEILING_JWKS: jwks,
      CEILING_ISSUER: ISSUER,
      CEILING_AUDIENCE: AUDIENCE,
    },
    port: await freePort(),
    logFile: path.join(resultsDir, `ceiling-b${label ? `-${label}` : ''}.log`),
  });
}
