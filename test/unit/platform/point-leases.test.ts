import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { leaseSizeFor, PointLeases } from '../../../src/platform/rate-limit/point-leases';
import { takenOf, type PointStore } from '../../../src/platform/rate-limit/point-store';

/**
 * A store over one of rate-limiter-flexible's limiters, a consume per key, with
 * the PostgreSQL store's arithmetic (postgres-point-store.ts); `takes` counts
 * its round trips, each with the keys it took.
 */
function storeOf(limiter: RateLimiterAbstract, budget: number): PointStore & { takes: string[][] } {
  const takes: string[][] = [];
  return {
    takes,
    windowMs: limiter.duration * 1000,
    take: (keys, lease) => {
      takes.push([...keys]);
      return Promise.all(
        keys.map(async (key) => {
          // The library refuses a consume past the budget with the same result, counted as well.
          const counted = await limiter.consume(key, lease).catch((refused: unknown) => {
            if (refused instanceof RateLimiterRes) return refused;
            throw refused;
          });
          return takenOf(counted.consumedPoints, counted.msBeforeNext, budget, lease);
        }),
      );
    },
  };
}

/** rate-limiter-flexible's in-memory limiter, counting the round trips a store would cost. */
class CountingLimiter extends RateLimiterMemory {
  consumes = 0;
  override consume(key: string | number, points?: number): Promise<RateLimiterRes> {
    this.consumes += 1;
    return super.consume(key, points);
  }
}

/** Holds every consume until opened, to stand for a store that has not answered yet. */
class GatedLimiter extends CountingLimiter {
  private gate = Promise.resolve();
  private release = (): void => undefined;
  override async consume(key: string | number, points?: number): Promise<RateLimiterRes> {
    const gate = this.gate;
    this.consumes += 1;
    await gate;
    return RateLimiterMemory.prototype.consume.call(this, key, points);
  }
  close(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release();
  }
}

/** Answers each consume with the next scripted result (or failure); with none left, never answers. */
class ScriptedLimiter extends RateLimiterMemory {
  consumes = 0;
  readonly answers: (RateLimiterRes | Error)[] = [];
  constructor(durationSeconds: number) {
    super({ points: 1, duration: durationSeconds });
  }
  override consume(): Promise<RateLimiterRes> {
    this.consumes += 1;
    const answer = this.answers.shift();
    if (answer === undefined) return new Promise(() => undefined);
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
}

/** A take of 10 points of a budget of 1,000 that leaves `remainingPoints`. */
function granted(remainingPoints: number, msBeforeNext: number): RateLimiterRes {
  return new RateLimiterRes(remainingPoints, msBeforeNext, 1000 - remainingPoints);
}

/** Lets settled promises' callbacks run. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function drawMany(leases: PointLeases[], count: number, key = 'client\nlocation'): Promise<number> {
  const draws = await Promise.all(Array.from({ length: count }, (_, index) => (leases[index % leases.length] as PointLeases).draw(key)));
  return draws.filter((draw) => draw.allowed).length;
}

describe('PointLeases', () => {
  it('sizes a lease at a fiftieth of the budget, from 1 to 100', () => {
    expect([3, 49, 50, 1200, 5000, 1_000_000].map(leaseSizeFor)).toEqual([1, 1, 1, 24, 100, 100]);
  });

  it('hands out exactly the budget, the last lease partly, and asks no more once it is spent', async () => {
    const limiter = new CountingLimiter({ points: 25, duration: 60 });
    const leases = new PointLeases(storeOf(limiter, 25), 10);
    expect(await drawMany([leases], 40)).toBe(25);
    // Three leases counted whole: the third crossed the budget and got 5 of its 10, the rest refused from memory.
    expect((await limiter.get('client\nlocation'))?.consumedPoints).toBe(30);
    expect(limiter.consumes).toBe(3);
  });

  it('never exceeds one budget shared by three replicas drawing concurrently', async () => {
    const limiter = new CountingLimiter({ points: 1000, duration: 60 });
    const replicas = [0, 1, 2].map(() => new PointLeases(storeOf(limiter, 1000), 20));
    const allowed = await drawMany(replicas, 1500);
    expect(allowed).toBeLessThanOrEqual(1000);
    // At worst each replica is left holding part of a lease it cannot share.
    expect(allowed).toBeGreaterThanOrEqual(1000 - 3 * 19);
  });

  it('costs one store round trip per lease, shared by concurrent requests of a key', async () => {
    const limiter = new CountingLimiter({ points: 100_000, duration: 60 });
    const leases = new PointLeases(storeOf(limiter, 100_000), 100);
    expect(await drawMany([leases], 50)).toBe(50);
    expect(limiter.consumes).toBe(1);
    expect(await drawMany([leases], 200)).toBe(200);
    expect(limiter.consumes).toBe(3);
  });

  it('takes the leases of keys asked for while a take is in flight together, in the next round trip', async () => {
    const limiter = new GatedLimiter({ points: 1000, duration: 60 });
    const store = storeOf(limiter, 1000);
    const leases = new PointLeases(store, 10);
    limiter.close();
    const first = leases.draw('location-0');
    await flush();
    const others = Promise.all(Array.from({ length: 30 }, (_, index) => leases.draw(`location-${index + 1}`)));
    await flush();
    limiter.open();
    expect((await first).allowed).toBe(true);
    expect((await others).every((draw) => draw.allowed)).toBe(true);
    expect(store.takes.map((keys) => keys.length)).toEqual([1, 30]);
    expect(new Set(store.takes.flat()).size).toBe(31);
  });

  it('once the store says the window is spent, refuses from memory with the time to its end', async () => {
    const limiter = new CountingLimiter({ points: 3, duration: 60 });
    const leases = new PointLeases(storeOf(limiter, 3), 1);
    expect(await drawMany([leases], 3)).toBe(3);
    const refused = await leases.draw('client\nlocation');
    expect(refused).toMatchObject({ allowed: false, remaining: 0 });
    expect(refused.msBeforeReset).toBeGreaterThan(0);
    expect(refused.msBeforeReset).toBeLessThanOrEqual(60_000);
    const consumes = limiter.consumes;
    expect(await drawMany([leases], 20)).toBe(0);
    expect(limiter.consumes).toBe(consumes);
  });

  it('takes a fresh lease when the window ends, and never carries leased points into it', async () => {
    let clock = 0;
    const limiter = new CountingLimiter({ points: 100, duration: 60 });
    const leases = new PointLeases(storeOf(limiter, 100), 10, () => clock);
    await leases.draw('key');
    expect(limiter.consumes).toBe(1);
    // Past the lease's end by this process's clock: the 9 points left of it are not used.
    clock = 61_000;
    await leases.draw('key');
    expect(limiter.consumes).toBe(2);
  });

  it('takes the next lease once half of the current one is handed out, so draws do not wait for the store', async () => {
    const limiter = new GatedLimiter({ points: 100_000, duration: 60 });
    const leases = new PointLeases(storeOf(limiter, 100_000), 10);
    const first = leases.draw('key');
    limiter.open();
    await first;
    limiter.close();
    // Points 2 to 5 come from the lease; the sixth leaves fewer than half, and the next lease is asked for.
    expect(await drawMany([leases], 5, 'key')).toBe(5);
    expect(limiter.consumes).toBe(2);
    // While the store has not answered, the four points left are still handed out at once.
    expect(await drawMany([leases], 4, 'key')).toBe(4);
    const waiting = leases.draw('key');
    limiter.open();
    expect(await waiting).toMatchObject({ allowed: true });
    // The lease was topped up, not replaced: 9 left, and no round trip until fewer than 5.
    expect(await drawMany([leases], 4, 'key')).toBe(4);
    expect(limiter.consumes).toBe(2);
  });

  it('drops what is left of a lease when the lease taken ahead comes from the next window', async () => {
    let clock = 0;
    const limiter = new ScriptedLimiter(60);
    const leases = new PointLeases(storeOf(limiter, 1000), 10, () => clock);
    limiter.answers.push(granted(990, 60_000));
    await leases.draw('key');
    // Near the lease's end by this clock the store has already begun its next window.
    clock = 59_990;
    limiter.answers.push(granted(990, 60_000));
    await drawMany([leases], 5, 'key');
    await flush();
    expect(limiter.consumes).toBe(2);
    // 10 points of the new window, not 4 old ones on top.
    const draws = await Promise.all(Array.from({ length: 10 }, () => leases.draw('key')));
    expect(draws.map((draw) => draw.remaining)).toEqual([999, 998, 997, 996, 995, 994, 993, 992, 991, 990]);
  });

  it('keeps a failure of a lease taken ahead for the draw that needs it', async () => {
    const limiter = new ScriptedLimiter(60);
    const leases = new PointLeases(storeOf(limiter, 1000), 4, () => 0);
    limiter.answers.push(granted(996, 60_000));
    limiter.answers.push(new Error('connection refused'));
    expect(await drawMany([leases], 4, 'key')).toBe(4);
    await flush();
    limiter.answers.push(new Error('connection refused'));
    await expect(leases.draw('key')).rejects.toThrow('connection refused');
  });

  it('asks the store under the store key, worked out only for a round trip', async () => {
    const limiter = new CountingLimiter({ points: 1000, duration: 60 });
    const worked: string[] = [];
    const leases = new PointLeases(storeOf(limiter, 1000), 10, Date.now, (key) => {
      worked.push(key);
      return `hashed:${key}`;
    });
    expect(await drawMany([leases], 5, 'client\nlocation')).toBe(5);
    expect(worked).toEqual(['client\nlocation']);
    expect((await limiter.get('hashed:client\nlocation'))?.consumedPoints).toBe(10);
    expect(await limiter.get('client\nlocation')).toBeNull();
  });

  it('passes a store failure on, so the request fails rather than going uncounted', async () => {
    const broken = new RateLimiterMemory({ points: 10, duration: 60 });
    broken.consume = () => Promise.reject(new Error('connection refused'));
    const leases = new PointLeases(storeOf(broken, 10), 1);
    await expect(leases.draw('key')).rejects.toThrow('connection refused');
  });
});
