import fc from 'fast-check';
import request from 'supertest';
import { API_OPERATIONS } from '../../src/api-operations';
import { pathParameters } from '../../src/api/operation';
import { paidIntent } from '../factories/checkout';
import { createCustomer } from '../factories/customers';
import { newLocation } from '../factories/locations';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 36, item 1: `createdAfter=0000-01-01T00:00:00Z`, an offset of +16:00
 * and a fraction of 129 digits passed validation and answered 500 (PostgreSQL:
 * "date/time field value out of range", "time zone displacement out of
 * range"). Every date parameter of every operation now accepts exactly what
 * PostgreSQL stores, and refuses the rest with a 400 naming it.
 */
let testApp: TestApp;
let location: string;
let customerId: string;
let intentId: string;
beforeAll(async () => {
  testApp = await startTestApp();
  location = newLocation();
  customerId = (await createCustomer(testApp, location)).id;
  intentId = (await paidIntent(testApp, location)).intent.id;
});
afterAll(() => testApp.close());

/** Every (operation, date parameter) pair, read from the declarations: a new dated list is covered without editing this file. */
const DATED = API_OPERATIONS.flatMap((operation) =>
  Object.keys(operation.query?.shape ?? {})
    .filter((name) => name.startsWith('created') || name === 'dueBefore')
    .map((parameter) => ({ operation, parameter })),
);

function urlOf(path: string, parameter: string, value: string): string {
  // An intent's lists (its refunds) name the intent; every other dated list, the customer.
  const id = path.startsWith('/v1/payment-intents/') ? intentId : customerId;
  const concrete = pathParameters(path).reduce((url, name) => url.replace(`{${name}}`, id), path);
  return `${concrete}?${parameter}=${encodeURIComponent(value)}`;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** An instant's parts, some outside what PostgreSQL stores; `stored` says whether it is inside. */
const instants = fc
  .record({
    year: fc.oneof(fc.integer({ min: 0, max: 9999 }), fc.constantFrom(0, 1, 9999)),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.integer({ min: 1, max: 28 }),
    hour: fc.integer({ min: 0, max: 23 }),
    minute: fc.integer({ min: 0, max: 59 }),
    fractionDigits: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 12 }), fc.constant(129)),
    offset: fc.oneof(
      fc.constant('Z'),
      fc.record({ sign: fc.constantFrom('+', '-'), hours: fc.integer({ min: 0, max: 23 }), minutes: fc.integer({ min: 0, max: 59 }) }),
    ),
  })
  .map(({ year, month, day, hour, minute, fractionDigits, offset }) => {
    const fraction = fractionDigits === 0 ? '' : `.${'7'.repeat(fractionDigits)}`;
    const zone = offset === 'Z' ? 'Z' : `${offset.sign}${pad(offset.hours, 2)}:${pad(offset.minutes, 2)}`;
    const value = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:00${fraction}${zone}`;
    const stored = year >= 1 && fractionDigits <= 9 && (offset === 'Z' || offset.hours <= 15);
    return { value, stored };
  });

describe.each(DATED.map(({ operation, parameter }) => [`${operation.method.toUpperCase()} ${operation.path}`, parameter, operation.path]))(
  '%s ?%s',
  (_name, parameter, path) => {
    it.each([
      ['year 0000', '0000-01-01T00:00:00Z'],
      ['year 0000, last second', '0000-12-31T23:59:59Z'],
      ['an offset of +16:00', '2026-11-01T00:00:00+16:00'],
      ['an offset of +23:59', '2026-11-01T00:00:00+23:59'],
      ['a fraction of 129 digits', `2026-11-01T00:00:00.${'1'.repeat(129)}Z`],
      ['a fraction of 10 digits', '2026-11-01T00:00:00.1234567891Z'],
    ])('refuses %s with 400 naming the field', async (_case, value) => {
      const response = await request(testApp.app)
        .get(urlOf(path, parameter, value))
        .set(testApp.as(location));
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ messageKey: 'VALIDATION_FAILED', fieldName: parameter });
    });

    it.each([
      ['year 0001', '0001-01-01T00:00:00Z'],
      ['year 9999 at -15:59', '9999-12-31T23:59:59.999999999-15:59'],
      ['an offset of +15:59', '2026-11-01T00:00:00+15:59'],
    ])('accepts %s, the edge of what PostgreSQL stores', async (_case, value) => {
      await request(testApp.app)
        .get(urlOf(path, parameter, value))
        .set(testApp.as(location))
        .expect(200);
    });

    it('answers 200 for every instant PostgreSQL stores and 400 naming the field for the rest, never a 5xx', async () => {
      await fc.assert(
        fc.asyncProperty(instants, async ({ value, stored }) => {
          const response = await request(testApp.app)
            .get(urlOf(path, parameter, value))
            .set(testApp.as(location));
          expect(response.status).toBe(stored ? 200 : 400);
          if (!stored) expect(response.body.fieldName).toBe(parameter);
        }),
        { numRuns: 40 },
      );
    });
  },
);

it("covers the nine dated lists, both parameters each, and the disputes' due date", () => {
  expect(DATED.map(({ operation, parameter }) => `${operation.operationId} ${parameter}`).sort()).toHaveLength(19);
});
