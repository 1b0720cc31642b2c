import request from 'supertest';
import { cardInput, createCustomer } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

const PAN = '4111111111111111';

async function tableSizes(): Promise<number[]> {
  const counts = await Promise.all(
    ['customers', 'payment_methods', 'default_payment_methods'].map((table) => testApp.db.knex(table).count<{ count: string }[]>('* as count')),
  );
  return counts.map((rows) => Number(rows[0]?.count));
}

function expectNoPanAnywhere(): void {
  for (const line of testApp.logLines) {
    expect(line).not.toContain(PAN);
    expect(line).not.toContain('4111 1111');
    expect(line).not.toContain('4111-1111');
  }
}

describe('a full card number in a request', () => {
  it.each([
    ['externalReferenceId', { externalReferenceId: PAN }],
    ['externalReferenceId', { externalReferenceId: 'card 4111 1111 1111 1111 for ada' }],
    ['description', { description: 'pay with 4111-1111-1111-1111 please' }],
    ['description', { description: '378282246310005' }],
    ['nickname', { nickname: Number(PAN) }],
  ])('is refused with 400 naming %s, and nothing is stored or logged', async (fieldName, body) => {
    const before = await tableSizes();
    const response = await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).send(body).expect(400);
    expect(response.body).toMatchObject({ status: 400, code: 1004, messageKey: 'CARD_NUMBER_REJECTED', fieldName });
    // No part of the number is echoed; the requestId is left out of the look, as a random UUID holds "1111" now and then.
    const { requestId, ...answer } = response.body as { requestId: string };
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(answer)).not.toContain('1111');
    expect(await tableSizes()).toEqual(before);
    expectNoPanAnywhere();
  });

  it('is refused in a saved card, a default context name and a location header', async () => {
    const location = newLocation();
    const customer = await createCustomer(testApp, location);
    const before = await tableSizes();

    const inCard = await request(testApp.app)
      .post(`/v1/customers/${customer.id}/payment-methods`)
      .set(testApp.as(location))
      .send(cardInput({ card: { type: 'visa', lastFour: '1111', expiry: { month: '01', year: '2099' }, number: PAN } }))
      .expect(400);
    expect(inCard.body.fieldName).toBe('card.number');

    const inContext = await request(testApp.app).get(`/v1/customers/${customer.id}/payment-methods/defaults/${PAN}`).set(testApp.as(location)).expect(400);
    expect(inContext.body.fieldName).toBe('contextName');

    const inHeader = await request(testApp.app)
      .post('/v1/customers')
      .set(testApp.as(`loc-${PAN}`))
      .send({})
      .expect(400);
    expect(inHeader.body).toMatchObject({ code: 1004, messageKey: 'CARD_NUMBER_REJECTED', fieldName: LOCATION_HEADER });

    expect(await tableSizes()).toEqual(before);
    expectNoPanAnywhere();
  });

  it.each([
    ['a number failing the Luhn check', '4111111111111112'],
    ['12 digits', '411111111116'],
    ['a 20-digit reference', '41111111111111110000'],
    ['a UUID whose digit groups pass Luhn', '01234567-0123-7123-8123-123456789010'],
  ])('does not refuse %s', async (_case, externalReferenceId) => {
    await request(testApp.app).post('/v1/customers').set(testApp.as(newLocation())).send({ externalReferenceId }).expect(200);
  });
});
