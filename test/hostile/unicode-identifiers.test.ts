import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../factories/customers';
import { LOCATION_HEADER, newLocation } from '../factories/locations';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 17, item 8: "café" in NFC and in NFD were two contexts, and a name
 * holding an invisible or right-to-left override character was accepted, so
 * two names that look the same named different things. Names are now read
 * in Unicode NFC, and format characters (category Cf) are refused.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';
const FORMAT_CHARACTERS = [
  ['a right-to-left override (U+202E)', 'web\u202Egpj'],
  ['a zero-width space (U+200B)', 'web\u200Bcheckout'],
  ['a byte-order mark (U+FEFF)', '\uFEFFweb'],
  ['a soft hyphen (U+00AD)', 'web\u00ADcheckout'],
  ['a tag character (U+E0041)', 'web\u{E0041}'],
];

const defaultsPath = (customerId: string, contextName?: string) =>
  `/v1/customers/${customerId}/payment-methods/defaults${contextName === undefined ? '' : `/${encodeURIComponent(contextName)}`}`;

/** A new customer with a card at a new location, and the answer to making that card its default for `contextName`. */
async function setDefault(contextName: string) {
  const location = newLocation();
  const customer = await createCustomer(testApp, location);
  const card = await saveCard(testApp, location, customer.id);
  const set = await request(testApp.app).post(defaultsPath(customer.id)).set(testApp.as(location)).send({ paymentMethodId: card.id, contextName });
  return { location, customer, card, set };
}

describe('contextName', () => {
  it.each([
    ['set in NFD, read in NFC', NFD, NFC],
    ['set in NFC, read in NFD', NFC, NFD],
  ])('is one context however it is composed: %s', async (_case, setAs, readAs) => {
    const { location, customer, card, set } = await setDefault(setAs);
    expect(set.status).toBe(200);
    expect(set.body.contextName).toBe(NFC);
    const read = await request(testApp.app).get(defaultsPath(customer.id, readAs)).set(testApp.as(location)).expect(200);
    expect(read.body).toEqual({ paymentMethodId: card.id, contextName: NFC });
    expect(await testApp.db.knex('default_payment_methods').where({ location_id: location }).select('context_name')).toEqual([{ context_name: NFC }]);
    await request(testApp.app).delete(defaultsPath(customer.id, readAs)).set(testApp.as(location)).expect(200);
  });

  it.each(FORMAT_CHARACTERS)('holding %s is refused 400 naming the field, in the body and in the path', async (_what, name) => {
    const { location, customer, set } = await setDefault(name);
    expect(set.status).toBe(400);
    expect(set.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'contextName' });
    const read = await request(testApp.app).get(defaultsPath(customer.id, name)).set(testApp.as(location)).expect(400);
    expect(read.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'contextName' });
    expect(await testApp.db.knex('default_payment_methods').where({ location_id: location })).toEqual([]);
  });
});

describe('externalReferenceId', () => {
  it('is stored in NFC and found in either form', async () => {
    const location = newLocation();
    const created = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(location))
      .send({ externalReferenceId: `ref-${NFD}` })
      .expect(200);
    expect(created.body.externalReferenceId).toBe(`ref-${NFC}`);
    for (const form of [NFC, NFD]) {
      const found = await request(testApp.app)
        .get(`/v1/customers?externalReferenceId=${encodeURIComponent(`ref-${form}`)}`)
        .set(testApp.as(location))
        .expect(200);
      expect(JSON.stringify(found.body)).toContain(created.body.id);
    }
  });

  it.each(FORMAT_CHARACTERS)('holding %s is refused 400 on customers and payment intents', async (_what, value) => {
    const location = newLocation();
    const customer = await request(testApp.app).post('/v1/customers').set(testApp.as(location)).send({ externalReferenceId: value }).expect(400);
    expect(customer.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'externalReferenceId' });
    const intent = await request(testApp.app)
      .post('/v1/payment-intents')
      .set(testApp.as(location))
      .send({ amount: 100, currency: 'USD', externalReferenceId: value, captureMethod: 'MANUAL' })
      .expect(400);
    expect(intent.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: 'externalReferenceId' });
  });

  it('keeps format characters where they are text, not a name: in a description', async () => {
    await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(newLocation()))
      .send({ description: 'Ada \u200Dfamily \u{1F468}\u200D\u{1F469}' })
      .expect(200);
  });
});

describe('a card fingerprint', () => {
  it('is the same fingerprint however it is composed: saving the card again updates it', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const first = await saveCard(testApp, location, customer.id, cardInput({ fingerprint: `fp-${NFD}` }));
    const again = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ fingerprint: `fp-${NFC}` }));
    expect(again.body.id).toBe(first.id);
  });
});

describe('the Platform-Restaurant-External-ID header', () => {
  it.each([...FORMAT_CHARACTERS, ['a name not in NFC', `loc-${NFD}`]])(
    'holding %s (sent as UTF-8) is refused 400: a location is compared exactly, so it must be sent in one form',
    async (_what, value) => {
      const response = await request(testApp.app)
        .get('/v1/customers?externalReferenceId=x')
        .set(testApp.adminAuthorization)
        // Header values travel as bytes; Node reads each byte as one Latin-1 character.
        .set(LOCATION_HEADER, Buffer.from(value as string, 'utf8').toString('latin1'));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ messageKey: 'LOCATION_HEADER_INVALID', fieldName: LOCATION_HEADER });
    },
  );
});
