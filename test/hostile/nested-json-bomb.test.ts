import { readFileSync } from 'node:fs';
import { startSourceService, type RunningService } from '../support/process/service-process';

/**
 * Issue 17, item 2, on a real process: a hundred logins of deeply nested
 * arrays, with no token, once kept the process from answering its liveness
 * probe and grew its resident memory from 118 MB to 1.06 GB for good. They
 * are now refused before they are parsed: the probe answers throughout and
 * memory stays where it was.
 */
let service: RunningService;
beforeAll(async () => {
  service = await startSourceService();
}, 90_000);
afterAll(() => service.stop());

function residentMegabytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('VmRSS:'));
  return Number(/(\d+)/.exec(line ?? '')?.[1]) / 1024;
}

const bomb = '['.repeat(6858) + ']'.repeat(6858);

describe('a hundred nested-JSON logins', () => {
  it('are refused 400 while liveness keeps answering, and leave resident memory where it was', async () => {
    // Warm up, so the baseline is the process at work, not just started: a
    // hundred small refused logins at once, as the bombs come, load the
    // login route and grow the heap to what that concurrency takes (about a
    // hundred MB on a busy CI machine, once counted here as growth).
    for (let i = 0; i < 20; i += 1) await fetch(`${service.baseUrl}/health/live`);
    const warmUp = Array.from({ length: 100 }, () =>
      fetch(`${service.baseUrl}/authentication/v1/authentication/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[[]]' }),
    );
    for (const response of await Promise.all(warmUp)) expect(response.status).toBe(400);
    const before = residentMegabytes(service.pid);
    const bombs = Array.from({ length: 100 }, () =>
      fetch(`${service.baseUrl}/authentication/v1/authentication/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: bomb }),
    );
    const probes = Array.from({ length: 10 }, () => fetch(`${service.baseUrl}/health/live`));
    for (const response of await Promise.all(bombs)) expect(response.status).toBe(400);
    for (const response of await Promise.all(probes)) expect(response.status).toBe(200);
    const after = residentMegabytes(service.pid);
    // The failing process grew by about 940 MB; a few MB of buffers are noise.
    expect(after - before).toBeLessThan(64);
  }, 60_000);
});
