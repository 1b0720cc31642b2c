import { accepts, databaseHostsOf } from '../../../src/platform/db/database-hosts';
import { loadConfig } from '../../../src/platform/config';

describe("DATABASE_URL's hosts (libpq's multi-host form)", () => {
  it('splits what pg_autoctl show uri prints into one URL per host, keeping the rest and taking target_session_attrs out', () => {
    expect(databaseHostsOf('postgres://postgres@127.0.0.1:6101,127.0.0.1:6102/postgres?target_session_attrs=read-write&sslmode=prefer')).toEqual({
      urls: ['postgres://postgres@127.0.0.1:6101/postgres?sslmode=prefer', 'postgres://postgres@127.0.0.1:6102/postgres?sslmode=prefer'],
      target: 'read-write',
    });
  });

  it('keeps a single host as it is (any session), with its password, an IPv6 host in brackets, and no port', () => {
    expect(databaseHostsOf('postgresql://app:s%40cret@db.internal/payments')).toEqual({
      urls: ['postgresql://app:s%40cret@db.internal/payments'],
      target: 'any',
    });
    expect(databaseHostsOf('postgres://u@[::1]:5432,h2/db?target_session_attrs=primary')).toEqual({
      urls: ['postgres://u@[::1]:5432/db', 'postgres://u@h2/db'],
      target: 'primary',
    });
  });

  it("keeps libpq's connect_timeout as each host's time to answer (1 read as 2 seconds, 0 as none), and refuses one that is not whole seconds", () => {
    expect(databaseHostsOf('postgres://u@h1,h2/db?connect_timeout=3').connectTimeoutMs).toBe(3000);
    expect(databaseHostsOf('postgres://u@h1,h2/db?connect_timeout=1').connectTimeoutMs).toBe(2000);
    expect(databaseHostsOf('postgres://u@h1,h2/db?connect_timeout=0').connectTimeoutMs).toBeUndefined();
    expect(databaseHostsOf('postgres://u@h1,h2/db').connectTimeoutMs).toBeUndefined();
    expect(() => databaseHostsOf('postgres://u@h1,h2/db?connect_timeout=2s')).toThrow(/connect_timeout/);
  });

  it.each([
    ['not a URL', 'nonsense'],
    ['another scheme', 'mysql://u@h/db'],
    ['an empty host between commas', 'postgres://u@h1,,h2/db'],
    ['a trailing comma', 'postgres://u@h1,/db'],
    ['an unknown session', 'postgres://u@h1,h2/db?target_session_attrs=writable'],
    ['a bad port', 'postgres://u@h1:99999/db'],
  ])('refuses %s', (_what, url) => {
    expect(() => databaseHostsOf(url)).toThrow();
  });

  it('is what the configuration takes: the multi-host form starts, a wrong one names DATABASE_URL', () => {
    const url = 'postgres://postgres@127.0.0.1:6101,127.0.0.1:6102/postgres?target_session_attrs=read-write';
    expect(loadConfig({ NODE_ENV: 'test', DATABASE_URL: url }).DATABASE_URL).toBe(url);
    expect(() => loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'postgres://u@h1,,h2/db' })).toThrow(/DATABASE_URL/);
  });

  it("accepts a server as libpq's target_session_attrs does", () => {
    const primary = { inRecovery: false, readOnly: false };
    const standby = { inRecovery: true, readOnly: true };
    const readOnlyPrimary = { inRecovery: false, readOnly: true };
    expect([primary, standby, readOnlyPrimary].map((state) => accepts('read-write', state))).toEqual([true, false, false]);
    expect([primary, standby, readOnlyPrimary].map((state) => accepts('primary', state))).toEqual([true, false, true]);
    expect([primary, standby, readOnlyPrimary].map((state) => accepts('read-only', state))).toEqual([false, true, true]);
    expect([primary, standby].map((state) => accepts('standby', state))).toEqual([false, true]);
    expect([primary, standby].map((state) => accepts('any', state))).toEqual([true, true]);
    expect([accepts('prefer-standby', primary, 'first'), accepts('prefer-standby', primary, 'second'), accepts('prefer-standby', standby)]).toEqual([
      false,
      true,
      true,
    ]);
  });
});
