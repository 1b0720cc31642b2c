import request from 'supertest';
import { cardInput, createCustomer, saveCard } from '../../factories/customers';
import { consentInput, createMandate, postMandate, revokeMandate } from '../../factories/mandates';
import { newLocation } from '../../factories/locations';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Mandates through HTTP: the consent recorded as given, the card that must
 * be the customer's, the reads, revocation, and their events. Runs on
 * PGlite and, with DATABASE_URL, on PostgreSQL.
 */
let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

async function customerWithCard(location: string): Promise<{ customerId: string; cardId: string }> {
  const customerId = (await createCustomer(testApp, location)).id;
  const card = await saveCard(testApp, location, customerId, cardInput());
  return { customerId, cardId: card.id };
}

async function mandateEvents(
  location: string,
  mandateId: string,
): Promise<Array<{ type: string; customerId: string; data: { object: object; previous: unknown } }>> {
  const rows = (await testApp.db
    .knex('events')
    .select('type', 'customer_id', 'data')
    .where({ location_id: location })
    .whereRaw("data->'object'->>'id' = ?", [mandateId])
    .orderBy('id')) as Array<{ type: string; customer_id: string; data: { object: object; previous: unknown } }>;
  return rows.map((row) => ({ type: row.type, customerId: row.customer_id, data: row.data }));
}

const mandateRows = async (location: string) =>
  Number(((await testApp.db.knex('mandates').where({ location_id: location }).count('* as n')) as Array<{ n: string }>)[0]?.n);

describe('recording a mandate', () => {
  it('answers 201 with the mandate ACTIVE and the consent as given, and records mandate.created with it', async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const consent = consentInput({ acceptedAt: '2026-11-20T10:00:00+01:00' });
    const made = await postMandate(testApp, location, customerId, {
      paymentMethodId: cardId,
      standingInstructionType: 'RECURRING',
      contextName: 'gold-plan',
      maxAmount: 2500,
      consent,
    }).expect(201);
    expect(made.body).toEqual({
      id: expect.any(String),
      customerId,
      paymentMethodId: cardId,
      contextName: 'gold-plan',
      standingInstructionType: 'RECURRING',
      status: 'ACTIVE',
      maxAmount: 2500,
      consent: {
        acceptedAt: '2026-11-20T09:00:00.000Z',
        textVersion: 'gold-plan-terms-v3',
        channel: 'ONLINE',
        ipAddress: '203.0.113.7',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
      },
      createdAt: expect.stringMatching(/Z$/),
      revokedAt: null,
    });
    expect(await mandateEvents(location, made.body.id)).toEqual([{ type: 'mandate.created', customerId, data: { object: made.body, previous: null } }]);
    const read = await request(testApp.app).get(`/v1/customers/${customerId}/mandates/${made.body.id}`).set(testApp.as(location)).expect(200);
    expect(read.body).toEqual(made.body);
  });

  it('takes the optional fields as absent (null)', async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const made = await postMandate(testApp, location, customerId, {
      paymentMethodId: cardId,
      standingInstructionType: 'UNSCHEDULED',
      consent: { acceptedAt: new Date(Date.now() - 1000).toISOString(), textVersion: 'v1' },
    }).expect(201);
    expect(made.body).toMatchObject({ contextName: null, maxAmount: null, consent: { textVersion: 'v1', channel: null, ipAddress: null, userAgent: null } });
  });

  it.each([
    ['consent', (body: Record<string, unknown>) => ({ ...body, consent: undefined })],
    ['consent.acceptedAt', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ acceptedAt: undefined }) })],
    ['consent.acceptedAt', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ acceptedAt: 'yesterday' }) })],
    [
      'consent.acceptedAt',
      (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ acceptedAt: new Date(Date.now() + 3_600_000).toISOString() }) }),
    ],
    ['consent.textVersion', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ textVersion: undefined }) })],
    ['consent.textVersion', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ textVersion: '' }) })],
    ['consent.ipAddress', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ ipAddress: 'not an address' }) })],
    ['consent.channel', (body: Record<string, unknown>) => ({ ...body, consent: consentInput({ channel: 'EMAIL' }) })],
    ['standingInstructionType', (body: Record<string, unknown>) => ({ ...body, standingInstructionType: 'SOMETIMES' })],
    ['paymentMethodId', (body: Record<string, unknown>) => ({ ...body, paymentMethodId: undefined })],
    ['maxAmount', (body: Record<string, unknown>) => ({ ...body, maxAmount: 0 })],
  ])('refuses a body without a valid %s (400 naming it) and records nothing', async (field, spoil) => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const body = spoil({ paymentMethodId: cardId, standingInstructionType: 'RECURRING', consent: consentInput() });
    const refused = await postMandate(testApp, location, customerId, JSON.parse(JSON.stringify(body)) as Record<string, unknown>).expect(400);
    expect(refused.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: field });
    expect(await mandateRows(location)).toBe(0);
  });

  it("refuses another customer's card and a card that does not exist (404 naming paymentMethodId), and an unknown customer (404)", async () => {
    const location = newLocation();
    const { customerId } = await customerWithCard(location);
    const other = await customerWithCard(location);
    const body = { standingInstructionType: 'RECURRING', consent: consentInput() };
    const theirs = await postMandate(testApp, location, customerId, { ...body, paymentMethodId: other.cardId }).expect(404);
    expect(theirs.body).toMatchObject({ messageKey: 'PAYMENT_METHOD_NOT_FOUND', fieldName: 'paymentMethodId' });
    await postMandate(testApp, location, customerId, { ...body, paymentMethodId: '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e' }).expect(
      404,
      /PAYMENT_METHOD_NOT_FOUND/,
    );
    await postMandate(testApp, location, '019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9', { ...body, paymentMethodId: other.cardId }).expect(404, /CUSTOMER_NOT_FOUND/);
    // Another location's card is not this location's either.
    await postMandate(testApp, newLocation(), other.customerId, { ...body, paymentMethodId: other.cardId }).expect(404, /CUSTOMER_NOT_FOUND/);
    expect(await mandateRows(location)).toBe(0);
  });
});

describe('reading and revoking mandates', () => {
  it("lists the customer's mandates newest first, a page at a time, and 404s another customer's mandate", async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await createMandate(testApp, location, customerId, cardId, { contextName: `plan-${i}` }));
    const first = await request(testApp.app).get(`/v1/customers/${customerId}/mandates?limit=2`).set(testApp.as(location)).expect(200);
    expect(first.body).toMatchObject({ results: 2, hasMore: true });
    expect(first.body.mandates.map((m: { id: string }) => m.id)).toEqual([made[2]?.id, made[1]?.id]);
    const rest = await request(testApp.app)
      .get(`/v1/customers/${customerId}/mandates?limit=2&startingAfter=${made[1]?.id}`)
      .set(testApp.as(location))
      .expect(200);
    expect(rest.body).toEqual({ results: 1, mandates: [made[0]], hasMore: false });

    const other = await customerWithCard(location);
    await request(testApp.app)
      .get(`/v1/customers/${other.customerId}/mandates/${made[0]?.id}`)
      .set(testApp.as(location))
      .expect(404, /MANDATE_NOT_FOUND/);
    await request(testApp.app)
      .get(`/v1/customers/${other.customerId}/mandates?startingAfter=${made[0]?.id}`)
      .set(testApp.as(location))
      .expect(400, /startingAfter/);
    await request(testApp.app)
      .get('/v1/customers/019ab3c4-5e6f-7a81-b2c3-d4e5f6a7b8c9/mandates')
      .set(testApp.as(location))
      .expect(404, /CUSTOMER_NOT_FOUND/);
  });

  it('revokes once: INACTIVE with revokedAt and one mandate.revoked event; a second revoke answers it unchanged', async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const revoked = await revokeMandate(testApp, location, customerId, mandate.id).expect(200);
    expect(revoked.body).toEqual({ ...mandate, status: 'INACTIVE', revokedAt: expect.stringMatching(/Z$/) });
    const again = await revokeMandate(testApp, location, customerId, mandate.id).expect(200);
    expect(again.body).toEqual(revoked.body);
    const events = await mandateEvents(location, mandate.id);
    expect(events.map((event) => event.type)).toEqual(['mandate.created', 'mandate.revoked']);
    expect(events[1]?.data).toEqual({ object: revoked.body, previous: { status: 'ACTIVE', revokedAt: null } });
    await revokeMandate(testApp, location, customerId, '019ab3c4-7a10-7b2c-8d3e-4f5a6b7c8d9e').expect(404, /MANDATE_NOT_FOUND/);
  });

  it('records one revocation however many revokes race', async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const mandate = await createMandate(testApp, location, customerId, cardId);
    const answers = await Promise.all(Array.from({ length: 6 }, () => revokeMandate(testApp, location, customerId, mandate.id)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.revokedAt)).size).toBe(1);
    expect((await mandateEvents(location, mandate.id)).map((event) => event.type)).toEqual(['mandate.created', 'mandate.revoked']);
  });
});

describe('erasing a customer with mandates', () => {
  it('revokes every ACTIVE mandate with its event, and keeps no IP address, user agent or card of theirs anywhere, events included', async () => {
    const location = newLocation();
    const { customerId, cardId } = await customerWithCard(location);
    const active = await createMandate(testApp, location, customerId, cardId);
    const revoked = await createMandate(testApp, location, customerId, cardId, { contextName: 'old-plan' });
    await revokeMandate(testApp, location, customerId, revoked.id).expect(200);
    const bystander = await customerWithCard(location);
    const kept = await createMandate(testApp, location, bystander.customerId, bystander.cardId);

    await request(testApp.app).delete(`/v1/customers/${customerId}`).set(testApp.as(location)).expect(200);

    const rows = (await testApp.db
      .knex('mandates')
      .select('id', 'status', 'revoked_at', 'consent_ip_address', 'consent_user_agent', 'consent_text_version', 'card')
      .where({ location_id: location, customer_id: customerId })
      .orderBy('id')) as Array<Record<string, unknown>>;
    expect(rows).toEqual([
      expect.objectContaining({
        id: active.id,
        status: 'INACTIVE',
        consent_ip_address: null,
        consent_user_agent: null,
        card: null,
        consent_text_version: 'gold-plan-terms-v3',
      }),
      expect.objectContaining({ id: revoked.id, status: 'INACTIVE', consent_ip_address: null, consent_user_agent: null, card: null }),
    ]);
    expect(rows[0]?.revoked_at).not.toBeNull();
    const events = await mandateEvents(location, active.id);
    expect(events.map((event) => event.type)).toEqual(['mandate.created', 'mandate.revoked']);
    const stored = JSON.stringify(await testApp.db.knex('events').select('data').where({ location_id: location, customer_id: customerId }));
    expect(stored).not.toContain('203.0.113.7');
    expect(stored).not.toContain('Mozilla');
    expect(events[1]?.data.object).toMatchObject({ status: 'INACTIVE', consent: { ipAddress: null, userAgent: null, textVersion: 'gold-plan-terms-v3' } });

    // Another customer's mandate is untouched.
    const other = await request(testApp.app).get(`/v1/customers/${bystander.customerId}/mandates/${kept.id}`).set(testApp.as(location)).expect(200);
    expect(other.body).toEqual(kept);
  });
});
