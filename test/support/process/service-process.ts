import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

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
  return startServiceProcess([BUILT_SERVER], env);
}

/** The same from the TypeScript sources (through tsx), for tests that run before a build. */
export function startSourceService(env: Record<string, string> = {}): Promise<RunningService> {
  return startServiceProcess(['--import', 'tsx', path.join(ROOT, 'src/server.ts')], env);
}

export interface RunningService {
  baseUrl: string;
  port: number;
  pid: number;
  logLines: string[];
  /** Sends a signal, without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** The exit code, once the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

async function startServiceProcess(args: string[], env: Record<string, string>): Promise<RunningService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-service-'));
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: ROOT,
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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
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
    void exited.then((code) => reject(new Error(`The service exited with ${code}:\n${logLines.join('\n')}`)));
  });
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    port,
    pid: child.pid as number,
    logLines,
    signal: (signal) => child.kill(signal),
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
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
