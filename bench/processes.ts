import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A port nobody listens on now: the OS's pick, released for the child to take. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface RunningServer {
  name: string;
  url: string;
  /** The highest resident set size (VmHWM) of any one of its processes so far, in MB. */
  peakRssMb(): number;
  /** CPU time (user + system) its processes have used so far, in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** VmHWM ("high water mark" of VmRSS) from /proc, in MB; 0 once the process is gone. */
function peakRssOf(pid: number): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Clock ticks per second of /proc's CPU times: 100 on Linux. */
export const TICKS_PER_SECOND = 100;

/** utime + stime from /proc/<pid>/stat, in ms; 0 once the process is gone. */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at ")"; utime and stime are the 12th and 13th of them.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** A process and its children (a cluster's workers). */
function processTree(pid: number): number[] {
  const path = `/proc/${pid}/task/${pid}/children`;
  const children = existsSync(path) ? readFileSync(path, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  return [pid, ...children.flatMap(processTree)];
}

export interface StartOptions {
  name: string;
  args: string[];
  env: Record<string, string>;
  port: number;
  /** The node binary that runs it; this process's own when omitted. */
  nodeBinary?: string;
  /** Where its stdout and stderr go (the service's request log, as a container would keep it). */
  logFile: string;
  /** How many processes say "listening" before it is ready (a cluster's workers each do). */
  listeners?: number;
  timeoutMs?: number;
}

/**
 * Starts a server process and waits for its "listening" log lines. Its output
 * goes to a file rather than through a pipe to this process, so the load
 * generator does not pay for reading the server's log.
 */
export async function startServer(options: StartOptions): Promise<RunningServer> {
  const log = openSync(options.logFile, 'w');
  const child: ChildProcess = spawn(options.nodeBinary ?? process.execPath, options.args, {
    env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(options.port), HOST: '127.0.0.1' },
    stdio: ['ignore', log, log],
  });
  closeSync(log);
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exitCode = code;
      resolve();
    }),
  );
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const listeners = options.listeners ?? 1;
  for (;;) {
    const text = readFileSync(options.logFile, 'utf8');
    if ((text.match(/"msg":"listening"/g) ?? []).length >= listeners) break;
    if (exitCode !== undefined) throw new Error(`${options.name} exited (${exitCode}) before listening:\n${text.slice(-2000)}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not start:\n${text.slice(-2000)}`);
    }
    await sleep(100);
  }
  const pid = child.pid as number;
  let peak = 0;
  const peakRssMb = (): number => {
    peak = Math.max(peak, ...processTree(pid).map(peakRssOf));
    return Math.round(peak);
  };
  return {
    name: options.name,
    url: `http://127.0.0.1:${options.port}`,
    peakRssMb,
    cpuMs: () => processTree(pid).reduce((total, member) => total + cpuMsOf(member), 0),
    stop: async () => {
      peakRssMb();
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}
