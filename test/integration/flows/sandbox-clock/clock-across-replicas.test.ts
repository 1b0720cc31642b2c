import request from 'supertest';
import { SANDBOX_CLOCK_CACHE_MS } from '../../../../src/platform/clock/sandbox-clocks';
import { newLocation } from '../../../factories/locations';
import { startTestApp, type TestApp } from '../../../support/test-app';

/**
 * Two replicas of the service over one database, each remembering the
 * offsets it read (SandboxClocks): a record made on one right after the
 * other answered an advance is stamped on the advanced clock. Before, the
 * second replica stamped it with the offset it had read up to a second
 * earlier, and the intent expired a few seconds later with its secret dead.
 * The system suite shows the same with two processes
 * (test/system/process/clock-across-replicas.test.ts).
 */
let first: TestApp;
let second: TestApp;
beforeAll(async () => {
  first = await startTestApp({ sandboxClockCacheMs: SANDBOX_CLOCK_CACHE_MS });
  second = await startTestApp({ database: first.db, sandboxClockCacheMs: SANDBOX_CLOCK_CACHE_MS });
});
afterAll(() => first.close());

it('stamps a record made on one replica right after another answered an advance on the advanced clock', async () => {
  for (let round = 0; round < 5; round += 1) {
    const location = newLocation();
    // The second replica reads (and remembers) the location's clock first.
    await request(second.app).get('/v1/sandbox/clock').set(second.as(location)).expect(200);
    const advanced = await request(first.app).post('/v1/sandbox/clock/advance').set(first.as(location)).send({ seconds: 90_000 }).expect(200);
    const created = await request(second.app)
      .post('/v1/payment-intents')
      .set(second.as(location))
      .send({ amount: 1000, currency: 'USD', externalReferenceId: `after-advance-${round}` })
      .expect(201);
    expect(Date.parse(created.body.creationDate)).toBeGreaterThanOrEqual(Date.parse(advanced.body.now));
    // Its secret lives from that stamp: still good on either replica.
    const secret = created.body.sessionSecret as string;
    for (const replica of [first, second]) {
      await request(replica.app)
        .get(`/v1/payment-intents/${created.body.id}`)
        .set({ ...replica.as(location), 'Platform-Session-Secret': secret })
        .expect(200);
    }
  }
});
