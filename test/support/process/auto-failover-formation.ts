import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './free-port';

/**
 * A real pg_auto_failover formation of the test's own (Debian's
 * pg_auto_failover 2.0: postgresql-15-auto-failover and
 * pg-auto-failover-cli): a monitor, a primary and its secondaries (two by
 * default, the documented production shape: `number_sync_standbys` 1, so a
 * commit waits for either one and the loss of one never stops writes), each
 * run by its own `pg_autoctl ... --run` keeper, on free ports in a temporary
 * folder, as the postgres OS user when the tests run as root (pg_autoctl
 * refuses root). The monitor and the keepers run with FAILOVER_SETTINGS.
 */
const PG_BIN = '/usr/lib/postgresql/15/bin';
const PG_AUTOCTL = '/usr/bin/pg_autoctl';
/** util-linux's runuser, by its path: the keepers' PATH is only PostgreSQL's and the system's bin folders. */
const RUNUSER = '/usr/sbin/runuser';

/**
 * What decides how fast the formation fails over (docs/deployment.md,
 * High availability, has each one's trade-off): the monitor's health checks
 * and the time after which a silent node is unhealthy, how long the monitor
 * waits for a lost primary to have demoted itself before it promotes
 * another, and (on each keeper) how long a primary that lost the monitor
 * and its secondaries waits before it demotes itself, which must stay below
 * the monitor's wait so that two primaries never take writes at once.
 */
export const FAILOVER_SETTINGS = {
  monitor: {
    'pgautofailover.health_check_period': 1000,
    'pgautofailover.health_check_timeout': 1000,
    'pgautofailover.health_check_max_retries': 1,
    'pgautofailover.health_check_retry_delay': 500,
    'pgautofailover.node_considered_unhealthy_timeout': 2000,
    'pgautofailover.primary_demote_timeout': 1500,
  },
  keeper: {
    'timeout.network_partition_timeout': 1,
  },
} as const;

export interface FormationNode {
  name: string;
  port: number;
  pgdata: string;
}

export interface NodeState {
  name: string;
  port: number;
  /** pg_autoctl's reported and goal states: `primary`, `secondary`, `wait_primary`, `demoted`, `catchingup`, … */
  reported: string;
  goal: string;
}

export interface Formation {
  nodes: FormationNode[];
  /** libpq's multi-host URL of the formation's database, as `pg_autoctl show uri` gives it, with the postgres user. */
  url: string;
  /** The URL of one node alone. */
  nodeUrl(node: FormationNode): string;
  states(): Promise<NodeState[]>;
  /** The node taking writes: reported and goal state both primary, or both wait_primary (waits for one). */
  primary(timeoutMs?: number): Promise<FormationNode>;
  /** Waits until every node is settled: one primary, the others secondary. */
  settled(timeoutMs?: number): Promise<void>;
  /** `pg_autoctl perform switchover`: the planned move of the primary to the secondary. */
  switchover(): Promise<void>;
  /** SIGKILL to the postmaster of `node` (its keeper restarts it, as a secondary once the formation failed over). */
  killPostmaster(node: FormationNode): Promise<void>;
  /** The node's machine lost: its keeper and its postmaster killed (SIGKILL), nothing stopped cleanly. */
  loseNode(node: FormationNode): Promise<void>;
  /** Waits for a primary other than `node` (a failover away from it). */
  primaryOtherThan(node: FormationNode, timeoutMs?: number): Promise<FormationNode>;
  /** The monitor's events since `since` (ms since the epoch), a line each, its time as ms after `since`: where a failover's seconds went. */
  events(since: number): Promise<string[]>;
  /** Stops a node's keeper and its Postgres (`pg_autoctl stop`), and starts it again. */
  stopNode(node: FormationNode): Promise<void>;
  startNode(node: FormationNode): Promise<void>;
  close(): Promise<void>;
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await promisify(execFile)('id', ['postgres']);
  return { uid: Number(/uid=(\d+)/.exec(stdout)?.[1]), gid: Number(/gid=(\d+)/.exec(stdout)?.[1]) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pid in a data folder's postmaster.pid, if it has one. */
function postmasterPid(pgdata: string): number | undefined {
  try {
    return Number(readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

function runningPostmasterPid(pgdata: string): number {
  const pid = postmasterPid(pgdata);
  if (pid === undefined) throw new Error(`no postmaster.pid in ${pgdata}: its Postgres is not running`);
  return pid;
}

/** Every process of the machine, with its parent. */
async function processes(): Promise<Array<{ pid: number; ppid: number }>> {
  const { stdout } = await promisify(execFile)('ps', ['-e', '-o', 'pid=,ppid=']);
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number))
    .map(([pid, ppid]) => ({ pid: pid as number, ppid: ppid as number }));
}

/** Statements run in turn on a local server of the formation, as the postgres user (trusted on 127.0.0.1). */
async function sql(port: number, database: string, statements: readonly string[]): Promise<void> {
  const client = new Client({ host: '127.0.0.1', port, user: 'postgres', database });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A node that takes writes: `primary`, or `wait_primary` (a primary whose secondary is gone, synchronous replication relaxed). */
const isPrimary = (state: NodeState) => (state.reported === 'primary' || state.reported === 'wait_primary') && state.reported === state.goal;

export async function startFormation(options: { secondaries?: number } = {}): Promise<Formation> {
  const secondaries = options.secondaries ?? 2;
  const root = mkdtempSync(path.join(os.tmpdir(), 'cpp-formation-'));
  chmodSync(root, 0o755);
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? await postgresUser() : undefined;
  for (const folder of ['config', 'data', 'run']) {
    mkdirSync(path.join(root, folder), { mode: 0o700 });
    if (owner) chownSync(path.join(root, folder), owner.uid, owner.gid);
  }
  if (owner) chownSync(root, owner.uid, owner.gid);
  const env = {
    PATH: `${PG_BIN}:/usr/bin:/bin`,
    XDG_CONFIG_HOME: path.join(root, 'config'),
    XDG_DATA_HOME: path.join(root, 'data'),
    XDG_RUNTIME_DIR: path.join(root, 'run'),
    PG_AUTOCTL_DEBUG: '0',
  };
  const command = (args: string[]): [string, string[]] =>
    asRoot ? [RUNUSER, ['-u', 'postgres', '--', '/usr/bin/env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), PG_AUTOCTL, ...args]] : [PG_AUTOCTL, args];
  const autoctl = async (args: string[]): Promise<string> => {
    const [file, argv] = command(args);
    const { stdout } = await promisify(execFile)(file, argv, { env: { ...process.env, ...env }, timeout: 60_000 });
    return stdout;
  };
  const keepers = new Map<string, ChildProcess>();
  const keep = (name: string, args: string[]) => {
    const [file, argv] = command(args);
    // Its own words in a file of the formation's folder: a keeper that gives up says why there (the monitor's is read on a timeout).
    const log = openSync(path.join(root, `${name}.log`), 'a');
    const child = spawn(file, argv, { env: { ...process.env, ...env }, stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    keepers.set(name, child);
  };

  const monitorPort = await freePort();
  const monitorData = path.join(root, 'monitor');
  keep('monitor', [
    'create',
    'monitor',
    '--pgdata',
    monitorData,
    '--pgport',
    String(monitorPort),
    '--hostname',
    '127.0.0.1',
    '--auth',
    'trust',
    '--no-ssl',
    '--run',
  ]);
  const monitorUrl = `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover?sslmode=disable`;
  const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 90_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (await check().catch(() => false)) return;
      if (Date.now() > deadline) throw new Error(`the formation: timed out waiting for ${what}`);
      await sleep(250);
    }
  };
  // Its initdb and extension take about a minute on a quiet machine of two cores, and more on a busy one (90 s was once not enough in CI).
  try {
    // Asked only once its Postgres runs: a `show state` racing the keeper's own start makes the same state folder, and the
    // keeper, finding it made (EEXIST), gives up ("Failed to create state directory"): the formation never came up.
    await until(
      'the monitor',
      async () =>
        existsSync(path.join(monitorData, 'postmaster.pid')) && (await autoctl(['show', 'state', '--pgdata', monitorData, '--json'])).trim().startsWith('['),
      240_000,
    );
  } catch (error) {
    const said = readFileSync(path.join(root, 'monitor.log'), 'utf8').split('\n').slice(-15).join('\n');
    for (const child of keepers.values()) if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}; its keeper said:\n${said}`, { cause: error });
  }

  const nodes: FormationNode[] = [];
  /** The monitor's database, for states(): made on the first call. */
  let monitorClient: Client | undefined;
  /** Every keeper and server of the formation stopped, and its folder removed: on close, and when it fails to start. */
  const close = async () => {
    await monitorClient?.end().catch(() => undefined);
    // Each postmaster's children, listed before anything is killed: they run in process groups of their own, and
    // the monitor's pg_auto_failover health-check worker outlives a killed postmaster (it and the logger it writes to
    // stayed, polling dead ports, after every run), so they are killed by pid below.
    const postmasterPids = new Set([monitorData, ...nodes.map((node) => node.pgdata)].map(postmasterPid).filter((pid) => pid !== undefined));
    const postmasterChildren = (await processes()).filter(({ ppid }) => postmasterPids.has(ppid)).map(({ pid }) => pid);
    for (const node of nodes) await autoctl(['stop', '--pgdata', node.pgdata, '--immediate']).catch(() => undefined);
    await autoctl(['stop', '--pgdata', monitorData, '--immediate']).catch(() => undefined);
    // Each keeper leads a process group of its own (spawned detached): the group goes, its helpers with it.
    for (const child of keepers.values()) {
      if (child.pid === undefined) continue;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    // Any postmaster still up (a keeper killed before it stopped its Postgres), by its own pid file, and the children
    // listed above.
    for (const pid of [...[monitorData, ...nodes.map((node) => node.pgdata)].map(postmasterPid), ...postmasterChildren]) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // not running
      }
    }
    await sleep(500);
    rmSync(root, { recursive: true, force: true });
  };
  const startNodeKeeper = (node: FormationNode) =>
    keep(node.name, [
      'create',
      'postgres',
      '--pgdata',
      node.pgdata,
      '--pgport',
      String(node.port),
      '--hostname',
      '127.0.0.1',
      '--name',
      node.name,
      '--dbname',
      'payments',
      '--monitor',
      monitorUrl,
      '--auth',
      'trust',
      '--no-ssl',
      '--run',
    ]);

  // Read from the monitor's own table over one kept connection, not by `pg_autoctl show state`: the tests poll it
  // every 250 ms through a failover, and a runuser, a pg_autoctl and a connection each time took CPU from the very
  // keepers whose steps are being timed.
  const states = async (): Promise<NodeState[]> => {
    if (monitorClient === undefined) {
      const client = new Client({ host: '127.0.0.1', port: monitorPort, user: 'postgres', database: 'pg_auto_failover' });
      client.on('error', () => undefined);
      await client.connect();
      monitorClient = client;
    }
    const { rows } = await monitorClient
      .query<{ nodename: string; nodeport: number; reportedstate: string; goalstate: string }>(
        'select nodename, nodeport, reportedstate::text, goalstate::text from pgautofailover.node order by nodeid',
      )
      .catch(async (error: unknown) => {
        // A broken connection is made again on the next call.
        await monitorClient?.end().catch(() => undefined);
        monitorClient = undefined;
        throw error;
      });
    return rows.map((row) => ({ name: row.nodename, port: row.nodeport, reported: row.reportedstate, goal: row.goalstate }));
  };
  const settled = async (timeoutMs = 120_000) =>
    until(
      'one primary and the others secondary',
      async () => {
        const now = await states();
        // A formation of one node is `single`, not `primary`.
        if (nodes.length === 1) return now.length === 1 && now[0]?.reported === 'single' && now[0]?.goal === 'single';
        return (
          now.length === nodes.length &&
          now.filter((state) => state.reported === 'primary' && state.goal === 'primary').length === 1 &&
          now.filter((state) => state.reported === 'secondary' && state.goal === 'secondary').length === nodes.length - 1
        );
      },
      timeoutMs,
    );

  try {
    // The monitor's settings, in its postgresql.auto.conf (ALTER SYSTEM's file), read on a reload.
    await sql(
      monitorPort,
      'pg_auto_failover',
      Object.entries(FAILOVER_SETTINGS.monitor).map(([name, value]) => `alter system set ${name} = ${value}`),
    );
    await sql(monitorPort, 'pg_auto_failover', ['select pg_reload_conf()']);

    for (let index = 1; index <= secondaries + 1; index += 1) {
      const node = { name: `node${index}`, port: await freePort(), pgdata: path.join(root, `node${index}`) };
      nodes.push(node);
      startNodeKeeper(node);
      // One at a time: the first becomes the primary, the others its secondaries.
      await settled();
      // Each keeper's own timeouts, in its configuration file, read on a reload.
      for (const [name, value] of Object.entries(FAILOVER_SETTINGS.keeper)) await autoctl(['config', 'set', '--pgdata', node.pgdata, name, String(value)]);
      await autoctl(['reload', '--pgdata', node.pgdata]);
    }
    if (secondaries > 1) {
      // Options before the value: pg_autoctl reads what follows the value as part of it.
      await autoctl(['set', 'formation', 'number-sync-standbys', '--monitor', monitorUrl, '--formation', 'default', '1']);
      await settled();
    }
  } catch (error) {
    await close();
    throw error;
  }

  const primary = async (timeoutMs = 60_000): Promise<FormationNode> => {
    let found: FormationNode | undefined;
    await until(
      'a primary',
      async () => {
        const now = await states();
        const state = now.find(isPrimary);
        found = nodes.find((node) => node.name === state?.name);
        return found !== undefined;
      },
      timeoutMs,
    );
    return found as FormationNode;
  };

  return {
    nodes,
    url: `postgres://postgres@${nodes.map((node) => `127.0.0.1:${node.port}`).join(',')}/payments?target_session_attrs=read-write`,
    nodeUrl: (node) => `postgres://postgres@127.0.0.1:${node.port}/payments`,
    states,
    primary,
    settled,
    async switchover() {
      await autoctl(['perform', 'switchover', '--pgdata', monitorData, '--formation', 'default']);
    },
    async killPostmaster(node) {
      process.kill(runningPostmasterPid(node.pgdata), 'SIGKILL');
    },
    async loseNode(node) {
      const keeper = keepers.get(node.name);
      if (keeper?.pid !== undefined) process.kill(-keeper.pid, 'SIGKILL');
      process.kill(runningPostmasterPid(node.pgdata), 'SIGKILL');
    },
    async primaryOtherThan(node, timeoutMs = 180_000) {
      let found: FormationNode | undefined;
      await until(
        `a primary other than ${node.name}`,
        async () => {
          const state = (await states()).find((row) => row.name !== node.name && isPrimary(row));
          found = nodes.find((candidate) => candidate.name === state?.name);
          return found !== undefined;
        },
        timeoutMs,
      );
      return found as FormationNode;
    },
    async stopNode(node) {
      keepers.get(node.name)?.kill('SIGTERM');
      await autoctl(['stop', '--pgdata', node.pgdata]).catch(() => undefined);
      await until(`${node.name} to stop`, async () => {
        try {
          readFileSync(path.join(node.pgdata, 'postmaster.pid'));
          return false;
        } catch {
          return true;
        }
      });
    },
    async startNode(node) {
      keep(node.name, ['run', '--pgdata', node.pgdata]);
    },
    async events(since) {
      const client = new Client({ host: '127.0.0.1', port: monitorPort, user: 'postgres', database: 'pg_auto_failover' });
      await client.connect();
      try {
        const { rows } = await client.query<{ after: number; nodename: string; description: string }>(
          `select round(extract(epoch from eventtime) * 1000 - $1)::int as after, nodename, description
             from pgautofailover.event where eventtime >= to_timestamp($1 / 1000.0) order by eventid`,
          [since],
        );
        return rows.map((row) => `+${row.after} ms ${row.nodename}: ${row.description}`);
      } finally {
        await client.end();
      }
    },
    close,
  };
}
