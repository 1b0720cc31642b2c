import request from 'supertest';
import { resealSecrets } from '../../../src/platform/secrets/reseal-secrets';
import { SecretBox, secretBox, useSecretBox, withNewKey } from '../../../src/platform/secrets/secret-box';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * `npm run secrets:rotate` (resealSecrets): with a new key made current in
 * the keyring, every stored secret is re-sealed under it, in batches, while
 * reads go on; a secret stored in clear before encryption existed is sealed too.
 */
let testApp: TestApp;
let original: SecretBox;
beforeAll(async () => {
  testApp = await startTestApp();
  original = secretBox();
});
afterAll(async () => {
  useSecretBox(original);
  await testApp.close();
});

describe('resealSecrets', () => {
  it('re-seals every secret under the current key, seals those stored in clear, and the API reads them all the same', async () => {
    const location = newLocation();
    const endpoint = (
      await request(testApp.app)
        .post('/v1/webhook-endpoints')
        .set(testApp.as(location))
        .send({ url: 'https://hooks.example.com/in', enabledEvents: ['*'] })
        .expect(201)
    ).body as { id: string; secret: string };
    await request(testApp.app).post(`/v1/webhook-endpoints/${endpoint.id}/rotate-secret`).set(testApp.as(location)).expect(200);
    const intents: Array<{ id: string; sessionSecret: string }> = [];
    for (let i = 0; i < 7; i += 1) {
      intents.push(
        (
          await request(testApp.app)
            .post('/v1/payment-intents')
            .set(testApp.as(location))
            .send({ amount: 100, currency: 'USD', externalReferenceId: `o-${i}` })
            .expect(201)
        ).body,
      );
    }
    // And a setup intent's SI_ secret, sealed the same way.
    const customer = (await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({}).expect(200)).body.id as string;
    const setup = (await request(testApp.app).post('/v1/setup-intents').set(testApp.as(location)).send({ customerId: customer }).expect(201)).body as {
      id: string;
      sessionSecret: string;
    };
    // One from before encryption: its secret in clear.
    const legacy = intents[0] as { id: string; sessionSecret: string };
    await testApp.db.knex('payment_intents').where({ location_id: location, id: legacy.id }).update({ session_secret: legacy.sessionSecret });

    const next = withNewKey(original.keyring);
    useSecretBox(new SecretBox(next));
    const counts = await resealSecrets(testApp.db.knex, secretBox(), 3);

    expect(counts.webhook_endpoints).toBeGreaterThanOrEqual(2);
    expect(counts.payment_intents).toBeGreaterThanOrEqual(7);
    expect(counts.setup_intents).toBeGreaterThanOrEqual(1);
    expect(await testApp.db.knex('setup_intents').where({ location_id: location, id: setup.id }).first('session_secret')).toEqual({
      session_secret: expect.stringMatching(new RegExp(`^enc1:${next.current}:`)),
    });
    const endpointRow = await testApp.db.knex('webhook_endpoints').where({ location_id: location, id: endpoint.id }).first('secret', 'previous_secret');
    expect(endpointRow.secret).toMatch(new RegExp(`^enc1:${next.current}:`));
    expect(endpointRow.previous_secret).toMatch(new RegExp(`^enc1:${next.current}:`));
    const sealed = await testApp.db.knex('payment_intents').where({ location_id: location }).pluck('session_secret');
    for (const value of sealed) expect(value).toMatch(new RegExp(`^enc1:${next.current}:`));
    for (const intent of intents) {
      expect((await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200)).body.sessionSecret).toBe(
        intent.sessionSecret,
      );
    }

    // The old key can now leave the keyring: nothing is sealed under it any more.
    useSecretBox(new SecretBox({ current: next.current, keys: { [next.current]: next.keys[next.current] as string } }));
    for (const intent of intents) await request(testApp.app).get(`/v1/payment-intents/${intent.id}`).set(testApp.as(location)).expect(200);
    expect((await request(testApp.app).get(`/v1/setup-intents/${setup.id}`).set(testApp.as(location)).expect(200)).body.sessionSecret).toBe(
      setup.sessionSecret,
    );
    expect(await resealSecrets(testApp.db.knex, secretBox())).toEqual({ webhook_endpoints: 0, payment_intents: 0, setup_intents: 0 });
  });
});
