import request from 'supertest';
import { purgeExpiredEvents } from '../../../src/change-log/event-retention';
import { runAlone } from '../../../src/platform/db/run-alone';
import { createCustomer } from '../../factories/customers';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/** EVENT_RETENTION_DAYS: older events (and their deliveries) are purged, one replica at a time. */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const DAY_MS = 24 * 3_600_000;

describe('event retention', () => {
  it('purges the events older than the retention, and their deliveries with them, keeping the rest', async () => {
    const location = newLocation();
    await createCustomer(testApp, location);
    await createCustomer(testApp, location);
    const endpoint = await request(testApp.app)
      .post('/v1/webhook-endpoints')
      .set(testApp.as(location))
      .send({ url: 'https://hooks.example.com/retention', enabledEvents: ['*'] })
      .expect(201);
    const [recent, old] = (await testApp.db.knex('events').where({ location_id: location }).orderBy('id', 'desc')) as Array<{ id: string }>;
    // The older event is made 91 days old, with a delivery of that age.
    await testApp.db
      .knex('events')
      .where({ location_id: location, id: old?.id })
      .update({ created_at: new Date(Date.now() - 91 * DAY_MS) });
    await testApp.db.knex('webhook_deliveries').insert({
      location_id: location,
      id: '019ab3c7-1a2b-7c3d-8e4f-506172839405',
      endpoint_id: endpoint.body.id,
      event_id: old?.id,
      status: 'SUCCEEDED',
      created_at: new Date(Date.now() - 91 * DAY_MS),
    });

    expect(await purgeExpiredEvents(testApp.db.knex, 90)).toBeGreaterThanOrEqual(1);
    const left = (await testApp.db.knex('events').where({ location_id: location }).select('id')) as Array<{ id: string }>;
    expect(left.map(({ id }) => id)).toEqual([recent?.id]);
    expect(await testApp.db.knex('webhook_deliveries').where({ location_id: location })).toEqual([]);
    await request(testApp.app).get(`/v1/events/${old?.id}`).set(testApp.as(location)).expect(404);
  });

  it('purges in transactions of at most 1,000 events each, so none holds many rows locked for long', async () => {
    const location = newLocation();
    await testApp.db.knex.raw(
      `insert into events (location_id, id, type, data, created_at)
       select ?, gen_random_uuid(), 'customer.created', '{"object": {}, "previous": null}', now() - interval '91 days'
         from generate_series(1, 2500)`,
      [location],
    );
    const batches: number[] = [];
    expect(await purgeExpiredEvents(testApp.db.knex, 90, (purged) => batches.push(purged))).toBe(2500);
    expect(batches).toEqual([1000, 1000, 500]);
    expect(await testApp.db.knex('events').where({ location_id: location })).toEqual([]);
  });

  it('never runs in two replicas at once: while one holds the purge, another skips it', async () => {
    let entered = false;
    let release: () => void = () => {};
    const held = runAlone(testApp.db.knex, 'purge-expired-events', async () => {
      entered = true;
      await new Promise<void>((resolve) => (release = resolve));
      return 'first';
    });
    while (!entered) await new Promise((resolve) => setTimeout(resolve, 5));
    // PGlite is one connection, so a second transaction would wait behind the first: only a server shows the skip.
    if (process.env.DATABASE_URL !== undefined) {
      expect(await purgeExpiredEvents(testApp.db.knex, 90)).toBe(0);
      expect(await runAlone(testApp.db.knex, 'purge-expired-events', async () => 'second')).toBeUndefined();
    }
    release();
    expect(await held).toBe('first');
    expect(await runAlone(testApp.db.knex, 'purge-expired-events', async () => 'after')).toBe('after');
  });
});
