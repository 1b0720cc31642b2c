import request from 'supertest';
import { addDays } from '../../../src/settlement/banking-days';
import { advanceToLocal } from '../../factories/settlement';
import type { z } from 'zod';
import { API_OPERATIONS } from '../../../src/api-operations';
import { scopesOf } from '../../../src/api/access';
import { pathParameters, type Operation } from '../../../src/api/operation';
import { SCOPES, SCOPE } from '../../../src/auth/scopes';
import { createCustomer, saveCard } from '../../factories/customers';
import { LOCATION_HEADER, newLocation } from '../../factories/locations';
import { createMandate } from '../../factories/mandates';
import { startTestApp, type TestApp } from '../../support/test-app';

/*
 * Derived from the operations' declarations (src/api-operations.ts): every
 * /v1 operation is called once with its scope alone and answers one of its
 * declared successes, and once with every other scope and is refused 403,
 * changing nothing. A new operation is covered the day it is declared.
 */

let testApp: TestApp;
let location: string;
let customerId: string;
let cardId: string;

beforeAll(async () => {
  // Every test makes its records, a webhook endpoint among them, at the one location its tokens name: more than the default cap of 16.
  testApp = await startTestApp({ webhookMaxEndpointsPerLocation: 100 });
  location = newLocation();
  customerId = (await createCustomer(testApp, location)).id;
  cardId = (await saveCard(testApp, location, customerId)).id;
  await request(testApp.app)
    .post(`/v1/customers/${customerId}/payment-methods/defaults`)
    .set(testApp.as(location))
    .send({ paymentMethodId: cardId, contextName: 'web' })
    .expect(200);
});
afterAll(() => testApp.close());

type Headers = Record<string, string>;

/** The records one call acts on: made afresh for each allowed call, so an allowed delete or cancel does not spoil the next. */
interface Records {
  customerId: string;
  paymentMethodId: string;
  contextName: string;
  intentId: string;
  sessionSecret: string;
  /** An intent of the same customer, confirmed with its card: REQUIRES_CAPTURE, what a capture acts on. */
  authorizedIntentId: string;
  /** An intent paid at once (SUCCEEDED), with a refund of part of it: what refunds act on. */
  paidIntentId: string;
  refundId: string;
  /** An ACTIVE mandate of the customer on its card: what the mandates' operations act on. */
  mandateId: string;
  /** The newest event of the location (the intent's creation). */
  eventId: string;
  endpointId: string;
  /** Today's open batch, and a PENDING payout of a closed day (for the settlement operations). */
  batchId: string;
  payoutId: string;
  /** A setup intent of the customer, REQUIRES_PAYMENT_METHOD (for the setup intents' operations), and its secret. */
  setupIntentId: string;
  setupSecret: string;
  /** A dispute of the paid intent, in the state its operation acts on: an inquiry to escalate, a chargeback under review to decide, else one needing a response. */
  disputeId: string;
}

/** `operation`'s records; a paid intent and its refund only for the refunds' operations (they take three more requests). */
async function freshRecords(operation: Operation<never>): Promise<Records> {
  const customer = (await createCustomer(testApp, location)).id;
  const card = (await saveCard(testApp, location, customer)).id;
  await request(testApp.app)
    .post(`/v1/customers/${customer}/payment-methods/defaults`)
    .set(testApp.as(location))
    .send({ paymentMethodId: card, contextName: 'web' })
    .expect(200);
  const intent = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-scopes', customerId: customer })
    .expect(201);
  const authorized = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-scopes', customerId: customer })
    .expect(201);
  await request(testApp.app)
    .post(`/v1/payment-intents/${authorized.body.id}/confirm`)
    .set(testApp.as(location))
    .send({ paymentMethodId: card })
    .expect(200, /REQUIRES_CAPTURE/);
  const refunded = /refunds|disputes/.test(operation.path) ? await paidAndRefunded(customer, card) : { paidIntentId: '', refundId: '' };
  const disputeId = /^\/v1\/(sandbox\/)?disputes/.test(operation.path) ? await disputeFor(operation, refunded.paidIntentId) : '';
  const mandate = operation.path.includes('mandates') ? (await createMandate(testApp, location, customer, card)).id : '';
  const setup = operation.path.startsWith('/v1/setup-intents')
    ? (await request(testApp.app).post('/v1/setup-intents').set(testApp.as(location)).send({ customerId: customer }).expect(201)).body
    : { id: '', sessionSecret: '' };
  const settles = ['/v1/batches', '/v1/payouts', '/v1/sandbox/payouts', '/v1/reports'].some((prefix) => operation.path.startsWith(prefix));
  // Money that moved today (today's open batch), and for the payouts' operations a day closed with its payout.
  const settled = settles ? await paidAndSettled(customer, card, operation.path.includes('payouts')) : { batchId: '', payoutId: '' };
  const events = await request(testApp.app).get('/v1/events?limit=1').set(testApp.as(location)).expect(200);
  // The location holds a few endpoints at most: one only where an operation acts on one.
  const needsEndpoint =
    operation.path.startsWith('/v1/webhook-endpoints') || JSON.stringify(operation.body?.schema.meta()?.example ?? {}).includes('endpointId');
  const endpoint = needsEndpoint
    ? await request(testApp.app)
        .post('/v1/webhook-endpoints')
        .set(testApp.as(location))
        .send({ url: 'https://hooks.example.com/scopes', enabledEvents: ['*'] })
        .expect(201)
    : { body: { id: '' } };
  return {
    customerId: customer,
    paymentMethodId: card,
    contextName: 'web',
    intentId: intent.body.id,
    sessionSecret: intent.body.sessionSecret,
    authorizedIntentId: authorized.body.id,
    ...refunded,
    mandateId: mandate,
    eventId: events.body.events[0].id,
    endpointId: endpoint.body.id,
    ...settled,
    disputeId,
    setupIntentId: setup.id,
    setupSecret: setup.sessionSecret,
  };
}

/** A dispute of `paidIntentId` in the state `operation` acts on. */
async function disputeFor(operation: Operation<never>, paidIntentId: string): Promise<string> {
  const stage = operation.path.endsWith('/escalate') ? 'INQUIRY' : 'CHARGEBACK';
  const opened = await request(testApp.app)
    .post(`/v1/sandbox/payment-intents/${paidIntentId}/disputes`)
    .set(testApp.as(location))
    .send({ stage, reason: 'GENERAL', amount: 500 })
    .expect(201);
  if (operation.path.endsWith('/decide')) {
    await request(testApp.app).post(`/v1/disputes/${opened.body.id}/evidence`).set(testApp.as(location)).send({ submit: true }).expect(200);
  }
  return opened.body.id;
}

/**
 * A capture today (today's open batch); with `closeADay`, the clock moved
 * past the day's close first, so that a closed batch and its payout exist.
 */
async function paidAndSettled(customer: string, card: string, closeADay: boolean): Promise<Pick<Records, 'batchId' | 'payoutId'>> {
  await paidAndRefunded(customer, card);
  let payoutId = '';
  if (closeADay) {
    // Just past today's cutoff: today's batch closed, its payout PENDING (it arrives a banking day after the close at the soonest).
    const { currentBusinessDate } = (await request(testApp.app).get('/v1/location-settings').set(testApp.as(location)).expect(200)).body;
    await advanceToLocal(testApp, location, `${addDays(currentBusinessDate, 1)} 04:00:30`);
    payoutId = (await request(testApp.app).get('/v1/payouts?limit=1&status=PENDING').set(testApp.as(location)).expect(200)).body.payouts[0].id;
    await paidAndRefunded(customer, card);
  }
  const current = await request(testApp.app).get('/v1/batches/current').set(testApp.as(location)).expect(200);
  return { batchId: current.body.id, payoutId };
}

async function paidAndRefunded(customer: string, card: string): Promise<Pick<Records, 'paidIntentId' | 'refundId'>> {
  const paid = await request(testApp.app)
    .post('/v1/payment-intents')
    .set(testApp.as(location))
    .send({ amount: 1250, currency: 'USD', externalReferenceId: 'order-scopes', customerId: customer, captureMethod: 'AUTOMATIC' })
    .expect(201);
  await request(testApp.app)
    .post(`/v1/payment-intents/${paid.body.id}/confirm`)
    .set(testApp.as(location))
    .send({ paymentMethodId: card })
    .expect(200, /SUCCEEDED/);
  const refund = await request(testApp.app).post(`/v1/payment-intents/${paid.body.id}/refunds`).set(testApp.as(location)).send({ amount: 100 }).expect(201);
  return { paidIntentId: paid.body.id, refundId: refund.body.id };
}

/** A path parameter's record: `id` names the customer or the intent, by the path's resource. */
function parameterValue(operation: Operation<never>, parameter: string, records: Records): string {
  if (parameter === 'id' && operation.path === '/v1/payment-intents/{id}/capture') return records.authorizedIntentId;
  if (parameter === 'id' && operation.path === '/v1/payment-intents/{id}/refunds') return records.paidIntentId;
  if (parameter === 'id' && operation.path.startsWith('/v1/refunds')) return records.refundId;
  if (parameter === 'id' && (operation.path.startsWith('/v1/payment-intents/{id}/disputes') || operation.path.startsWith('/v1/sandbox/payment-intents'))) {
    return records.paidIntentId;
  }
  if (parameter === 'id' && /^\/v1\/(sandbox\/)?disputes/.test(operation.path)) return records.disputeId;
  if (parameter === 'id' && operation.path.startsWith('/v1/payment-intents')) return records.intentId;
  if (parameter === 'id' && operation.path.startsWith('/v1/setup-intents')) return records.setupIntentId;
  if (parameter === 'id' && operation.path.startsWith('/v1/events')) return records.eventId;
  if (parameter === 'id' && operation.path.startsWith('/v1/webhook-endpoints')) return records.endpointId;
  if (parameter === 'id' && operation.path.startsWith('/v1/batches')) return records.batchId;
  if (parameter === 'id' && (operation.path.startsWith('/v1/payouts') || operation.path.startsWith('/v1/sandbox/payouts'))) return records.payoutId;
  if (parameter === 'id') return records.customerId;
  if (parameter === 'paymentMethodId') return records.paymentMethodId;
  if (parameter === 'contextName') return records.contextName;
  if (parameter === 'mandateId') return records.mandateId;
  // Any date reads a sales day; one with no sales answers an empty one.
  if (parameter === 'businessDate') return '2026-11-27';
  throw new Error(`${operation.operationId}: no test record for the path parameter ${parameter}; add one here`);
}

function exampleOf(schema: z.ZodType): unknown {
  const example = schema.meta()?.example;
  if (example === undefined) throw new Error('the schema declares no example');
  return example;
}

/** The declared examples of the body and query, with the records' ids where they name one. */
function requestOf(operation: Operation<never>, records: Records): { path: string; query: Record<string, unknown>; body: unknown } {
  const path = pathParameters(operation.path).reduce(
    (built, parameter) => built.replace(`{${parameter}}`, encodeURIComponent(parameterValue(operation, parameter, records))),
    operation.path,
  );
  const query = Object.fromEntries(Object.entries(operation.query?.shape ?? {}).map(([name, field]) => [name, exampleOf(field as z.ZodType)]));
  // A customers cursor must be a customer of the location: the record's, not the example's.
  if (operation.path === '/v1/customers' && 'startingAfter' in query) query.startingAfter = records.customerId;
  if (operation.path === '/v1/payment-intents' && 'startingAfter' in query) query.startingAfter = records.authorizedIntentId;
  if (operation.path === '/v1/payment-intents/{id}/refunds' && 'startingAfter' in query) query.startingAfter = records.refundId;
  // The disputes lists' first pages: the example's cursor is no dispute of the location.
  if (['/v1/disputes', '/v1/payment-intents/{id}/disputes'].includes(operation.path)) delete query.startingAfter;
  if (operation.path === '/v1/customers/{id}/mandates' && 'startingAfter' in query) query.startingAfter = records.mandateId;
  if (operation.path === '/v1/setup-intents' && 'startingAfter' in query) query.startingAfter = records.setupIntentId;
  // The location's newest event is the customer's (the last record made for it before the read).
  if (['/v1/events', '/v1/customers/{id}/events'].includes(operation.path) && 'startingAfter' in query) query.startingAfter = records.eventId;
  if (operation.path === '/v1/webhook-endpoints' && 'startingAfter' in query) query.startingAfter = records.endpointId;
  // No attempt has been made to the new endpoint: its first page; and the settlement lists' first pages too.
  if (operation.path === '/v1/webhook-endpoints/{id}/deliveries') delete query.startingAfter;
  const settlementLists = ['/v1/batches', '/v1/batches/{id}/lines', '/v1/payouts', '/v1/payouts/{id}/lines', '/v1/reports/sales-days/{businessDate}/lines'];
  if (settlementLists.includes(operation.path)) delete query.startingAfter;
  const example = operation.body === undefined ? undefined : exampleOf(operation.body.schema);
  const body =
    example === undefined
      ? undefined
      : {
          ...(example as Record<string, unknown>),
          ...('customerId' in (example as object) ? { customerId: records.customerId } : {}),
          ...('paymentMethodId' in (example as object) ? { paymentMethodId: records.paymentMethodId } : {}),
          ...('endpointId' in (example as object) ? { endpointId: records.endpointId } : {}),
        };
  return { path, query, body };
}

function call(operation: Operation<never>, records: Records, headers: Headers): request.Test {
  const { path, query, body } = requestOf(operation, records);
  const test = request(testApp.app)
    [operation.method](path)
    .query(query)
    .set({ [LOCATION_HEADER]: location, ...headers });
  return body === undefined ? test : test.send(body as object);
}

async function rowCounts(): Promise<number[]> {
  const tables = [
    'customers',
    'payment_methods',
    'default_payment_methods',
    'payment_intents',
    'events',
    'webhook_endpoints',
    'webhook_deliveries',
    'setup_intents',
    'mandates',
  ];
  const counts = await Promise.all(tables.map((table) => testApp.db.knex(table).count<{ count: string }[]>('* as count')));
  const canceled = await testApp.db.knex('payment_intents').where({ status: 'CANCELED' }).count<{ count: string }[]>('* as count');
  return [...counts, canceled].map((rows) => Number(rows[0]?.count));
}

const successes = (operation: Operation<never>) => Object.keys(operation.responses).map(Number);

describe.each(API_OPERATIONS.map((operation) => ({ name: `${operation.method.toUpperCase()} ${operation.path}`, operation })))('$name', ({ operation }) => {
  // The refused call changes nothing (it says so), so the allowed call after it acts on the same records: one set of records made for both.
  let unchangedByRefusal: Records | undefined;

  it('is refused with 403 insufficient_scope with every other scope, changing nothing', async () => {
    const records = await freshRecords(operation);
    const others = SCOPES.filter((scope) => !scopesOf(operation.access).includes(scope));
    const token = await testApp.tokenFor({ scopes: others, locations: ['*'] });
    const before = await rowCounts();
    const response = await call(operation, records, { Authorization: `Bearer ${token}` });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 403, code: 4031, messageKey: 'INSUFFICIENT_SCOPE' });
    expect(response.headers['www-authenticate']).toBe(
      `Bearer realm="customer-payment-profiles", error="insufficient_scope", scope="${operation.access.scope}"`,
    );
    expect(await rowCounts()).toEqual(before);
    unchangedByRefusal = records;
  });

  it(`succeeds with ${operation.access.scope} alone`, async () => {
    const records = unchangedByRefusal ?? (await freshRecords(operation));
    const token = await testApp.tokenFor({ scopes: [operation.access.scope], locations: [location] });
    const response = await call(operation, records, { Authorization: `Bearer ${token}` });
    expect(successes(operation)).toContain(response.status);
  });

  if (operation.access.sessionSecret !== undefined) {
    it(`succeeds with ${SCOPE.integrationRead} and the session secret of its record`, async () => {
      const records = await freshRecords(operation);
      const token = await testApp.tokenFor({ scopes: [SCOPE.integrationRead], locations: [location] });
      // A setup intent's operations take its own secret (SI_), the others the payment intent's (PI_).
      const secret = operation.path.startsWith('/v1/setup-intents') ? records.setupSecret : records.sessionSecret;
      const response = await call(operation, records, { Authorization: `Bearer ${token}`, 'Platform-Session-Secret': secret });
      expect(successes(operation)).toContain(response.status);
    });
  }
});

it('covers the payment-intent writes (they were once missing from a hand-kept list)', () => {
  const covered = API_OPERATIONS.map(({ method, path }) => `${method.toUpperCase()} ${path}`);
  expect(covered).toEqual(expect.arrayContaining(['POST /v1/payment-intents', 'POST /v1/payment-intents/{id}/cancel']));
});

describe('simplified-payments-integration:read on the two customer reads', () => {
  it.each([
    ['GET /v1/customers/{id}/payment-methods', () => `/v1/customers/${customerId}/payment-methods`],
    ['GET .../defaults/{contextName}', () => `/v1/customers/${customerId}/payment-methods/defaults/web`],
  ])('%s answers 401 without a valid Platform-Session-Secret', async (_name, path) => {
    const token = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: ['*'] });
    for (const secret of [undefined, 'not-a-session-secret']) {
      const call = request(testApp.app).get(path()).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
      const response = await (secret === undefined ? call : call.set('Platform-Session-Secret', secret));
      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ code: 4004, messageKey: 'SESSION_SECRET_INVALID' });
    }
  });

  it('does not grant the other reads', async () => {
    const token = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: ['*'] });
    const response = await request(testApp.app).get(`/v1/customers/${customerId}`).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location);
    expect(response.status).toBe(403);
  });
});

describe('location entitlement', () => {
  it('allows the locations the token lists, and refuses others with 403 changing nothing', async () => {
    const other = newLocation();
    const token = await testApp.tokenFor({ scopes: SCOPES, locations: [location, 'loc-x'] });
    await request(testApp.app).get(`/v1/customers/${customerId}`).set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, location).expect(200);

    const before = await rowCounts();
    const refused = await request(testApp.app).post('/v1/customers').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, other).send({});
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 4032, messageKey: 'LOCATION_NOT_PERMITTED' });
    expect(await rowCounts()).toEqual(before);
  });

  it('lets a token for every location ("*") act anywhere', async () => {
    const token = await testApp.tokenFor({ scopes: ['spi.customers:write'], locations: ['*'] });
    await request(testApp.app).post('/v1/customers').set('Authorization', `Bearer ${token}`).set(LOCATION_HEADER, newLocation()).send({}).expect(200);
  });
});
