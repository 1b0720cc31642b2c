import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = path.resolve(__dirname, '../../..');
export const BUILT_SERVER = path.join(ROOT, 'dist/src/server.js');

export interface RunningService {
  baseUrl: string;
  /** Every log line the service printed. */
  logLines: string[];
  stop(): Promise<number | null>;
}

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
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cpp-built-'));
  const child: ChildProcess = spawn(process.execPath, [BUILT_SERVER], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', ...env },
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
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    logLines,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
