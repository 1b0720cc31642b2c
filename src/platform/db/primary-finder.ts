import pg from 'pg';
import type { Logger } from '../logger';
import { accepts, type DatabaseHosts, type ServerState } from './database-hosts';

/** A host's state in words, for the error that says why no host would do. */
function describe(state: ServerState): string {
  return `${state.inRecovery ? 'a standby' : 'not in recovery'}, ${state.readOnly ? 'read-only' : 'read-write'}`;
}

/** An error's message alone (a driver's own words: the host's address at most, never a password). */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const STATE = "select pg_is_in_recovery() as in_recovery, current_setting('transaction_read_only') = 'on' as read_only";

/**
 * Which of DATABASE_URL's hosts new connections go to, as libpq chooses
 * with target_session_attrs: the first, in order, that is reachable and
 * acceptable (read-write: `transaction_read_only` off; primary: not in
 * recovery; …). The host found is kept until a connection fails to open,
 * is lost, or is refused as read-only (`lookAgain`): then the next one
 * looks again, and Knex replaces the pooled connections made before
 * (`isStale` is their configuration's expiration check). That is how the
 * service follows a failover.
 *
 * Every host is asked at once (libpq asks them one after another), each with
 * its own time to answer: the URL's connect_timeout, else half the acquire
 * timeout, so a host that accepts and never answers is passed by within one
 * acquire and a primary just promoted, busy with its first checkpoint, still
 * has the time to say so. The choice is libpq's all the same: the first
 * acceptable host in the URL's order. Acquires that find the host stale
 * together share one look (during a failover every pooled connection fails
 * at once, and each used to ask every host on its own).
 */
export class PrimaryFinder {
  private current = 0;
  private stale = true;
  private looking: Promise<string> | undefined;
  private readonly perHostTimeoutMs: number;

  constructor(
    private readonly hosts: DatabaseHosts,
    acquireTimeoutMs: number,
    private readonly logger?: Logger,
  ) {
    this.perHostTimeoutMs = hosts.connectTimeoutMs ?? Math.max(1, Math.floor(acquireTimeoutMs / 2));
  }

  /** The URL new connections use; throws when no host is acceptable. */
  url(): Promise<string> {
    if (!this.stale) return Promise.resolve(this.hosts.urls[this.current] as string);
    this.looking ??= this.look().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  /** Every host's state at once, then the first acceptable one in the URL's order (from the one in use, as libpq goes on from it). */
  private async look(): Promise<string> {
    const passes = this.hosts.target === 'prefer-standby' ? (['first', 'second'] as const) : (['first'] as const);
    const count = this.hosts.urls.length;
    const found = await Promise.all(this.hosts.urls.map((url) => this.stateOf(url)));
    for (const pass of passes) {
      for (let step = 0; step < count; step += 1) {
        const index = (this.current + step) % count;
        const state = found[index]?.state;
        if (state !== undefined && accepts(this.hosts.target, state, pass)) {
          if (index !== this.current) this.logger?.warn({ host: index + 1, of: count }, 'the database connections go to another host of DATABASE_URL');
          this.current = index;
          this.stale = false;
          return this.hosts.urls[index] as string;
        }
      }
    }
    // What each host said, so that an operator reads why none would do (no address or credential is in it).
    const said = found.map((answer, index) => `host ${index + 1}: ${answer.why ?? describe(answer.state as ServerState)}`).join('; ');
    throw new Error(`no host of DATABASE_URL is reachable and ${this.hosts.target} (${said})`);
  }

  /** A connection failed to open, was refused as read-only or lost its server: the next connection looks for the host again. */
  lookAgain(): void {
    this.stale = true;
  }

  /** Whether the host must be looked for again (Knex asks before handing out a pooled connection: keep it cheap). */
  get isStale(): boolean {
    return this.stale;
  }

  /** The host's state, or why there is none (it did not answer, or refused the connection). */
  private async stateOf(url: string): Promise<{ state?: ServerState; why?: string }> {
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: this.perHostTimeoutMs,
      // A host that accepts the connection and then says nothing to the state query is passed by too.
      query_timeout: this.perHostTimeoutMs,
      application_name: 'customer-payment-profiles',
    });
    // A probe's socket error after connect must not crash the process; the probe is ended either way.
    client.on('error', () => undefined);
    let connected = false;
    try {
      await client.connect();
      connected = true;
      const { rows } = await client.query<{ in_recovery: boolean; read_only: boolean }>(STATE);
      const row = rows[0];
      return row === undefined ? { why: 'no answer to the state query' } : { state: { inRecovery: row.in_recovery, readOnly: row.read_only } };
    } catch (error) {
      return { why: connected ? `the state query failed (${messageOf(error)})` : `not reachable (${messageOf(error)})` };
    } finally {
      // end() of a client that never connected waits for ever: its socket is already gone.
      if (connected) await client.end().catch(() => undefined);
    }
  }
}
