/**
 * libpq's multi-host connection URI (`postgres://u@h1:p1,h2:p2/db?target_session_attrs=read-write`,
 * what `pg_autoctl show uri` prints for a formation), which node-postgres
 * does not read: its `pg-connection-string` (2.6 here, 2.14 the newest)
 * parses the URL with WHATWG's parser, which takes one host. Split here into
 * one single-host URL per host, each of which pg reads as it reads any
 * (user, password, database, sslmode and the other parameters kept), and the
 * session the service must get (docs/deployment.md, Past one database).
 */
export const TARGET_SESSION_ATTRS = ['any', 'read-write', 'primary', 'read-only', 'standby', 'prefer-standby'] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export interface DatabaseHosts {
  /** One URL per host, in the order given: the first acceptable is used. */
  urls: string[];
  /** What a host must be to be used (libpq's target_session_attrs; `any` when not given). */
  target: TargetSessionAttrs;
  /**
   * libpq's connect_timeout, per host, in milliseconds: how long one host may
   * take to answer before the next is tried (libpq reads 1 as 2 seconds; 0 or
   * none: PrimaryFinder shares the acquire timeout between the hosts).
   */
  connectTimeoutMs?: number;
}

const URI = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)([^#]*)$/;

/** The hosts of an authority (`h1:5432,[::1]:6432,h3`), each with its port if it has one. */
function splitHosts(list: string): string[] {
  const hosts: string[] = [];
  let current = '';
  let inBrackets = false;
  for (const character of list) {
    if (character === '[') inBrackets = true;
    if (character === ']') inBrackets = false;
    if (character === ',' && !inBrackets) {
      hosts.push(current);
      current = '';
    } else current += character;
  }
  hosts.push(current);
  return hosts;
}

/** Throws on anything that is not a PostgreSQL URL with at least one host, or on a target_session_attrs libpq does not know. */
export function databaseHostsOf(url: string): DatabaseHosts {
  const match = URI.exec(url);
  if (match === null) throw new Error('Must be a postgres:// or postgresql:// URL.');
  const [, scheme, userInfo = '', hostList = '', rest = ''] = match;
  const hosts = splitHosts(hostList);
  if (hosts.some((host) => host.length === 0)) throw new Error('Must name every host: an empty one is between two commas, or at an end.');
  const queryStart = rest.indexOf('?');
  const path = queryStart === -1 ? rest : rest.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? '' : rest.slice(queryStart + 1));
  const target = query.get('target_session_attrs') ?? 'any';
  if (!(TARGET_SESSION_ATTRS as readonly string[]).includes(target)) {
    throw new Error(`target_session_attrs must be one of ${TARGET_SESSION_ATTRS.join(', ')}.`);
  }
  // pg would pass it on to the server as an unknown option: it is this module's to act on.
  query.delete('target_session_attrs');
  const connectTimeout = query.get('connect_timeout');
  const seconds = connectTimeout === null ? 0 : Number.parseInt(connectTimeout, 10);
  if (connectTimeout !== null && !/^\s*-?\d+\s*$/.test(connectTimeout)) throw new Error('connect_timeout must be a whole number of seconds.');
  const search = query.size === 0 ? '' : `?${query.toString()}`;
  const urls = hosts.map((host) => `${scheme}${userInfo}${host}${path}${search}`);
  for (const single of urls) new URL(single);
  return { urls, target: target as TargetSessionAttrs, ...(seconds > 0 ? { connectTimeoutMs: Math.max(2, seconds) * 1000 } : {}) };
}

/** What a connected server says of itself, for target_session_attrs. */
export interface ServerState {
  /** pg_is_in_recovery(): a standby. */
  inRecovery: boolean;
  /** transaction_read_only: read-write transactions refused by default (a standby, or default_transaction_read_only). */
  readOnly: boolean;
}

/** Whether a server in `state` is one `target` accepts (libpq's rules; prefer-standby is a standby first, then any). */
export function accepts(target: TargetSessionAttrs, state: ServerState, pass: 'first' | 'second' = 'first'): boolean {
  switch (target) {
    case 'any':
      return true;
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.inRecovery;
    case 'standby':
      return state.inRecovery;
    case 'prefer-standby':
      return pass === 'second' || state.inRecovery;
  }
}
