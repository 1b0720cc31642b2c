import pg from 'pg';
import type { Logger } from '../logger';
import { accepts, type DatabaseHosts, type ServerState } from './database-hosts';

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
 * Each host has its own time to answer, as libpq gives each connect_timeout:
 * the URL's, else an equal share of the acquire timeout, so a first host
 * that accepts and never answers leaves the others time within one acquire
 * (before, it took the whole acquire timeout and the start failed).
 */
export class PrimaryFinder {
  private current = 0;
  private stale = true;
  private readonly perHostTimeoutMs: number;

  constructor(
    private readonly hosts: DatabaseHosts,
    acquireTimeoutMs: number,
    private readonly logger?: Logger,
  ) {
    this.perHostTimeoutMs = hosts.connectTimeoutMs ?? Math.max(1, Math.floor(acquireTimeoutMs / hosts.urls.length));
  }

  /** The URL new connections use; throws when no host is acceptable. */
  async url(): Promise<string> {
    if (!this.stale) return this.hosts.urls[this.current] as string;
    const passes = this.hosts.target === 'prefer-standby' ? (['first', 'second'] as const) : (['first'] as const);
    const count = this.hosts.urls.length;
    for (const pass of passes) {
      for (let step = 0; step < count; step += 1) {
        const index = (this.current + step) % count;
        const state = await this.stateOf(this.hosts.urls[index] as string);
        if (state !== undefined && accepts(this.hosts.target, state, pass)) {
          if (index !== this.current) this.logger?.warn({ host: index + 1, of: count }, 'the database connections go to another host of DATABASE_URL');
          this.current = index;
          this.stale = false;
          return this.hosts.urls[index] as string;
        }
      }
    }
    throw new Error(`no host of DATABASE_URL is reachable and ${this.hosts.target} (${count} tried)`);
  }

  /** A connection failed to open, was refused as read-only or lost its server: the next connection looks for the host again. */
  lookAgain(): void {
    this.stale = true;
  }

  /** Whether the host must be looked for again (Knex asks before handing out a pooled connection: keep it cheap). */
  get isStale(): boolean {
    return this.stale;
  }

  private async stateOf(url: string): Promise<ServerState | undefined> {
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
      return row === undefined ? undefined : { inRecovery: row.in_recovery, readOnly: row.read_only };
    } catch {
      return undefined;
    } finally {
      // end() of a client that never connected waits for ever: its socket is already gone.
      if (connected) await client.end().catch(() => undefined);
    }
  }
}
