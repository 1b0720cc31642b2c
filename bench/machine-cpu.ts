import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { cpuMsOf, TICKS_PER_SECOND } from './processes';

/** Busy time of every core together (user, nice, system, irq, softirq, steal), in ms, from /proc/stat. */
function machineBusyMs(): number {
  const [cpuLine] = readFileSync('/proc/stat', 'utf8').split('\n', 1);
  const [user, nice, system, , , irq, softirq, steal] = (cpuLine ?? '').trim().split(/\s+/).slice(1).map(Number);
  return (((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) * 1000) / TICKS_PER_SECOND;
}

/**
 * CPU time of every PostgreSQL server process on this machine running now
 * (postmaster, backends, autovacuum workers), in ms, by pid: none when
 * DATABASE_URL names a server elsewhere.
 */
function postgresCpuMs(): Map<number, number> {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres') byPid.set(Number(entry), cpuMsOf(Number(entry)));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return byPid;
}

/**
 * PostgreSQL's CPU between two readings, process by process: one that
 * started meanwhile counts whole, one that ended meanwhile (a backend whose
 * client left, an autovacuum worker) is left out, since its last figures
 * are gone; a plain difference of totals went negative when one ended.
 */
function postgresCpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}

function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

interface Reading {
  atMs: number;
  machineBusyMs: number;
  postgresMs: Map<number, number>;
  loadGeneratorMs: number;
  serverMs: number;
}

/**
 * Where the machine's CPU went during a load, per answered request: the
 * server under test, the load generator (this process: autocannon runs in
 * it), PostgreSQL, and how busy all cores were together. On a machine whose
 * load generator and database share the cores with the server, this says
 * whether a figure was bound by the server or by the machine.
 */
export interface CpuCost {
  /** The server's CPU per request, in µs. */
  serverMicros: number;
  loadGeneratorMicros: number;
  postgresMicros: number;
  /** All cores' busy time over the load's wall time × cores, in %. */
  machineBusyPercent: number;
}

export function readCpu(serverCpuMs: () => number): Reading {
  return { atMs: performance.now(), machineBusyMs: machineBusyMs(), postgresMs: postgresCpuMs(), loadGeneratorMs: ownCpuMs(), serverMs: serverCpuMs() };
}

export function cpuCostBetween(before: Reading, after: Reading, requests: number, cores = os.cpus().length): CpuCost {
  const perRequest = (ms: number): number => Math.round((ms * 1000) / requests);
  return {
    serverMicros: perRequest(after.serverMs - before.serverMs),
    loadGeneratorMicros: perRequest(after.loadGeneratorMs - before.loadGeneratorMs),
    postgresMicros: perRequest(postgresCpuBetween(before.postgresMs, after.postgresMs)),
    machineBusyPercent: Math.round(((after.machineBusyMs - before.machineBusyMs) * 100) / ((after.atMs - before.atMs) * cores)),
  };
}
