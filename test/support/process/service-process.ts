import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { copyTemplateFolder } from '../pglite-template';
import { withNewKey } from '../../../src/platform/secrets/secret-box';

const ROOT = path.resolve(__dirname, '../../..');
export const BUILT_SERVER = path.join(ROOT, 'dist/src/server.js');

function parseLogLine(line: string): { msg?: string; port?: number } {
  try {
    return JSON.parse(line) as { msg?: string; port?: number };
  } catch {
    return {};
  }
}

/**
 * Starts the production build (`node dist/src/server.js`, what the Dockerfile
 * runs) on a free port with an embedded database in a new folder, and answers
 * once it logs that it listens.
 */
export async function startBuiltService(env: Record<string, string> = {}): Promise<RunningService> {
  if (!existsSync(BUILT_SERVER)) throw new Error(`${BUILT_SERVER} is missing: run \`npm run build\` first.`);
  return startServiceProcess({ file: process.execPath, args: [BUILT_SERVER], migrated: true }, env);
}

/** The same from the TypeScript sources (through tsx), for tests that run before a build. */
export function startSourceService(env: Record<string, string> = {}): Promise<RunningService> {
  return startServiceProcess({ file: process.execPath, args: ['--import', 'tsx', path.join(ROOT, 'src/server.ts')], migrated: true }, env);
}

/**
 * A shell command line that ends in the service (README's `npm install && npm
 * start`), run in the checkout. It runs in a process group of its own, so
 * signals reach the service under npm and tsx.
 */
export function startServiceByShell(commandLine: string, env: Record<string, string> = {}): Promise<RunningService> {
  return startServiceProcess({ file: 'bash', args: ['-c', commandLine], group: true }, env);
}

interface ServiceCommand {
  file: string;
  args: string[];
  /** Signals go to the whole process group (the command is a shell, npm or tsx above the service). */
  group?: boolean;
  /**
   * The embedded database starts as a copy of the tests' migrated template
   * (when one was made and the test names no DATA_DIR or DATABASE_URL of its
   * own): the service then finds it migrated instead of creating it, seconds
   * of CPU that two test files starting services at once would fight over.
   * README's first start keeps a fresh folder (startServiceByShell).
   */
  migrated?: boolean;
}

export interface RunningService {
  baseUrl: string;
  port: number;
  pid: number;
  logLines: string[];
  /** Sends a signal, without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** The exit code, once the process has exited and all its output has been read. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

let sharedKeyringFile: string | undefined;
/**
 * One secrets keyring for every service this test process starts on a server
 * database, as every replica of a deployment shares one: a service started
 * again on the same database (after a restart, a failover) must open what
 * the one before sealed, and one with another keyring refuses to start
 * (docs/runbook.md, Keys in use). Removed when the test process exits.
 */
function sharedKeyring(): string {
  if (sharedKeyringFile === undefined) {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'cpp-keyring-'));
    sharedKeyringFile = path.join(folder, 'secrets-keyring.json');
    writeFileSync(sharedKeyringFile, JSON.stringify(withNewKey()), { mode: 0o600 });
    process.once('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  return sharedKeyringFile;
}

async function startServiceProcess(command: ServiceCommand, givenEnv: Record<string, string>): Promise<RunningService> {
  // A test that names a DATA_DIR or a keyring keeps them: the tests of the keyring's refusals do.
  const env =
    givenEnv.DATABASE_URL !== undefined && givenEnv.SECRETS_ENCRYPTION_KEY_FILE === undefined && givenEnv.DATA_DIR === undefined
      ? { SECRETS_ENCRYPTION_KEY_FILE: sharedKeyring(), ...givenEnv }
      : givenEnv;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-service-'));
  if (command.migrated === true && env.DATA_DIR === undefined && env.DATABASE_URL === undefined) await copyTemplateFolder(path.join(dataDir, 'pglite'));
  const child: ChildProcess = spawn(command.file, command.args, {
    cwd: ROOT,
    detached: command.group === true,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logLines: string[] = [];
  // 'close', not 'exit': a process's last lines may still be in the pipe when it exits, and a test that reads
  // logLines once the process has gone must find them all.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The service did not start:\n${logLines.join('\n')}`)), 60_000);
    createInterface({ input: child.stderr! }).on('line', (line) => logLines.push(line));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      logLines.push(line);
      const entry = parseLogLine(line);
      if (entry.msg === 'listening' && entry.port !== undefined) {
        clearTimeout(timer);
        resolve(entry.port);
      }
    });
    void exited.then((code) => {
      // Its timer too: left running, it would hold the test process open for a minute after a refused start.
      clearTimeout(timer);
      reject(new Error(`The service exited with ${code}:\n${logLines.join('\n')}`));
    });
  });
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  const signal = (name: NodeJS.Signals): void => {
    if (command.group === true) process.kill(-(child.pid as number), name);
    else child.kill(name);
  };
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid as number,
    logLines,
    signal,
    exited,
    async stop() {
      if (child.exitCode === null) signal('SIGTERM');
      return exited;
    },
  };
}

/** An access token for the development client, from a service started without configured clients. */
export async function devClientToken(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/authentication/v1/authentication/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ clientId: 'local-dev-client', clientSecret: 'local-dev-secret' }),
  });
  if (response.status !== 200) throw new Error(`login answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { token: { accessToken: string } }).token.accessToken;
}
