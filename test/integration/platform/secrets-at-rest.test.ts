import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { capture, checkoutWith, confirm } from '../../factories/checkout';
import { newLocation } from '../../factories/locations';
import { rowsHolding } from '../../support/rows-holding';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Issue 36, item 8: webhook signing secrets sat in clear in
 * `webhook_endpoints` and, for a keyed create, in the answer stored in
 * `idempotency_keys`; session secrets sat in clear in `payment_intents`.
 * They are now sealed with AES-256-GCM under SECRETS_ENCRYPTION_KEY_FILE's
 * keyring, and a stored answer never holds one: a replay reads it again.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

/** A secret, and the part of it that is random (what a search must not find, whatever surrounds it). */
function partsOf(secret: string): string[] {
  const random = secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : (secret.split('_SECRET_')[1] as string);
  return [secret, random];
}

describe('secrets at rest', () => {
  it('no table holds a session secret or a webhook secret in clear after a checkout and a webhook set-up; replays answer them re-read', async () => {
    const location = newLocation();
    const endpointKey = randomUUID();
    const createEndpoint = () =>
      request(testApp.app)
        .post('/v1/webhook-endpoints')
        .set(testApp.as(location))
        .set('Idempotency-Key', endpointKey)
        .send({ url: 'https://hooks.example.com/in', enabledEvents: ['*'] });
    const endpoint = (await createEndpoint().expect(201)).body as { id: string; secret: string };
    const rotated = (await request(testApp.app).post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`).set(testApp.as(location)).expect(200)).body as {
      secret: string;
    };

    const intentKey = randomUUID();
    const intentBody = { amount: 1250, currency: 'USD', externalReferenceId: 'order-at-rest' };
    const createIntent = () => request(testApp.app).post('/v1/payment-intents').set(testApp.as(location)).set('Idempotency-Key', intentKey).send(intentBody);
    const intent = (await createIntent().expect(201)).body as { id: string; sessionSecret: string };
    const { intent: paid, cardId: paidCard } = await checkoutWith(testApp, location);
    await confirm(testApp, location, paid.id, { paymentMethodId: paidCard }).expect(200);
    await capture(testApp, location, paid.id).expect(200);

    const secrets = [endpoint.secret, rotated.secret, intent.sessionSecret, paid.sessionSecret];
    for (const secret of secrets) {
      for (const part of partsOf(secret)) expect({ part, rows: await rowsHolding(testApp.db.knex, part) }).toEqual({ part, rows: [] });
    }

    // A replay answers the secret read again from its record: the endpoint's current one, the intent's own.
    const endpointReplay = await createEndpoint().expect(201);
    expect(endpointReplay.headers['idempotent-replayed']).toBe('true');
    expect(endpointReplay.body).toEqual({ ...endpoint, secret: rotated.secret });
    const intentReplay = await createIntent().expect(201);
    expect(intentReplay.headers['idempotent-replayed']).toBe('true');
    expect(intentReplay.body).toEqual(intent);
    // Reads decrypt: the browser's secret opens its intent.
    expect((await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200)).body.sessionSecret).toBe(
      intent.sessionSecret,
    );

    // A deleted endpoint's create replays as the 404 it now is: its secret is gone with it.
    await request(testApp.app).delete(`/v1/webhook-endpoints/${endpoint.id}`).set(testApp.as(location)).expect(204);
    await createEndpoint().expect(404);
  });

  it('a sealed secret copied to another record does not open there', async () => {
    const location = newLocation();
    const make = async () =>
      (
        await request(testApp.app)
          .post('/v1/payment-intents')
          .set(testApp.as(location))
          .send({ amount: 100, currency: 'USD', externalReferenceId: 'o' })
          .expect(201)
      ).body as { id: string };
    const [first, second] = [await make(), await make()];
    const sealed = (await testApp.db.knex('payment_intents').where({ location_id: location, id: first.id }).first('session_secret')) as {
      session_secret: string;
    };
    await testApp.db.knex('payment_intents').where({ location_id: location, id: second.id }).update({ session_secret: sealed.session_secret });
    const read = await request(testApp.app).get(`/v1/payment-intents/${second.id}`).set(testApp.as(location));
    expect(read.status).toBe(500);
    expect(JSON.stringify(read.body)).not.toContain(sealed.session_secret);
  });
});
