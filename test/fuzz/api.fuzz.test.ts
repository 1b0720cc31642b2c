import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import request from 'supertest';
import { SCOPES, type Scope } from '../../src/auth/scopes';
import { cardInput } from '../factories/customers';
import { LOCATION_HEADER } from '../factories/locations';
import { takeContractViolations } from '../support/contract/contract-recorder';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * A property-based fuzz of the whole API: fast-check generates sequences of
 * requests over every endpoint (valid and mutated bodies, headers, ids,
 * locations, scopes) and checks invariants after each step. CI runs
 * FUZZ_RUNS (default 25) sequences with a logged seed; `npm run fuzz` runs
 * more. A failure prints the seed and the shrunk sequence to replay it
 * (FUZZ_SEED=<seed>).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const LOCATIONS = ['fuzz-loc-a', 'fuzz-loc-b'] as const;

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
});
afterAll(() => testApp.close());

/** Ids the sequence has seen, so later steps aim at real records as well as made-up ones. */
interface Known {
  customers: string[];
  cards: string[];
  intents: string[];
}

type IdPick = { kind: 'known'; index: number } | { kind: 'literal'; value: string };

const idPick: fc.Arbitrary<IdPick> = fc.oneof(
  { weight: 6, arbitrary: fc.nat(20).map((index): IdPick => ({ kind: 'known', index })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(randomUUID(), 'not-a-uuid', '%00', 'A'.repeat(300), randomUUID().toUpperCase(), '%ED%A0%80', '..', '')
      .map((value): IdPick => ({ kind: 'literal', value })),
  },
);

function pickId(pick: IdPick, pool: string[]): string {
  if (pick.kind === 'literal') return pick.value;
  return pool.length === 0 ? randomUUID() : (pool[pick.index % pool.length] as string);
}

/** A value to put in a body field when mutating it. */
const hostileValue = fc.oneof(
  fc.constantFrom<unknown>(null, 7, -1, 1.5, 1e300, true, [], {}, '', 'x'.repeat(300), 'a\u0000b', '\ud800', '4111111111111111', '__proto__'),
  fc.string({ maxLength: 20 }),
  fc.integer(),
);

/** A body as an operation takes it, or mutated: a field replaced, dropped or added. */
function bodyArbitrary(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, fc.nat(10), hostileValue).map(([body, index, value]) => {
        const keys = Object.keys(body);
        return { ...body, [keys[index % keys.length] as string]: value };
      }),
    },
    { weight: 1, arbitrary: fc.tuple(valid, fc.nat(10)).map(([body, index]) => Object.fromEntries(Object.entries(body).filter((_, i) => i !== index % Object.keys(body).length))) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, [], 'text', 42) },
  );
}

const validCustomer = fc.record({ externalReferenceId: fc.constantFrom('u1', 'u2', 'u3'), description: fc.string({ maxLength: 30 }) });
const validCard = fc.record({ fingerprint: fc.constantFrom('fp-1', 'fp-2', 'fp-3') }).map((extra) => cardInput(extra));
const validIntent = fc.record({
  amount: fc.integer({ min: 1, max: 99_999_999 }),
  currency: fc.constantFrom('USD', 'CAD', 'EUR'),
  externalReferenceId: fc.constantFrom('order-1', 'order-2'),
});

type Step =
  | { op: 'createCustomer'; body: unknown }
  | { op: 'findCustomers'; reference: string }
  | { op: 'getCustomer'; customer: IdPick }
  | { op: 'saveCard'; customer: IdPick; body: unknown }
  | { op: 'listCards'; customer: IdPick }
  | { op: 'deleteCard'; customer: IdPick; card: IdPick }
  | { op: 'setDefault'; customer: IdPick; card: IdPick; context: string; mutate: boolean }
  | { op: 'getDefault'; customer: IdPick; context: string }
  | { op: 'deleteDefault'; customer: IdPick; context: string }
  | { op: 'createIntent'; body: unknown; customer: IdPick | null }
  | { op: 'getIntent'; intent: IdPick }
  | { op: 'cancelIntent'; intent: IdPick };

const context = fc.constantFrom('web', 'kiosk', 'x'.repeat(256), 'a\u0001');

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('createCustomer' as const), body: bodyArbitrary(validCustomer) }),
  fc.record({ op: fc.constant('findCustomers' as const), reference: fc.constantFrom('u1', 'u2', '', 'x'.repeat(300)) }),
  fc.record({ op: fc.constant('getCustomer' as const), customer: idPick }),
  fc.record({ op: fc.constant('saveCard' as const), customer: idPick, body: bodyArbitrary(validCard) }),
  fc.record({ op: fc.constant('listCards' as const), customer: idPick }),
  fc.record({ op: fc.constant('deleteCard' as const), customer: idPick, card: idPick }),
  fc.record({ op: fc.constant('setDefault' as const), customer: idPick, card: idPick, context, mutate: fc.boolean() }),
  fc.record({ op: fc.constant('getDefault' as const), customer: idPick, context }),
  fc.record({ op: fc.constant('deleteDefault' as const), customer: idPick, context }),
  fc.record({ op: fc.constant('createIntent' as const), body: bodyArbitrary(validIntent), customer: fc.option(idPick, { nil: null }) }),
  fc.record({ op: fc.constant('getIntent' as const), intent: idPick }),
  fc.record({ op: fc.constant('cancelIntent' as const), intent: idPick }),
);

/** Who asks, and for which location. */
const callerArbitrary = fc.record({
  location: fc.constantFrom(...LOCATIONS),
  scopes: fc.oneof({ weight: 4, arbitrary: fc.constant([...SCOPES]) }, { weight: 1, arbitrary: fc.subarray([...SCOPES]) }),
  entitled: fc.oneof({ weight: 4, arbitrary: fc.constant('own' as const) }, { weight: 1, arbitrary: fc.constantFrom('other' as const, 'all' as const) }),
  idempotencyKey: fc.option(fc.constantFrom('k1', 'k2', 'bad key'), { nil: undefined }),
});

type Caller = { location: (typeof LOCATIONS)[number]; scopes: Scope[]; entitled: 'own' | 'other' | 'all'; idempotencyKey: string | undefined };

async function headersFor(caller: Caller): Promise<Record<string, string>> {
  const other = LOCATIONS.find((location) => location !== caller.location) as string;
  const locations = caller.entitled === 'all' ? ['*'] : [caller.entitled === 'own' ? caller.location : other];
  const token = await testApp.tokenFor({ scopes: caller.scopes, locations });
  return {
    Authorization: `Bearer ${token}`,
    [LOCATION_HEADER]: caller.location,
    ...(caller.idempotencyKey === undefined ? {} : { 'Idempotency-Key': caller.idempotencyKey }),
  };
}

/** Any JSON value as a body, including the non-objects supertest's send() refuses to serialize. */
function json(test: request.Test, body: unknown): request.Test {
  return test.set('Content-Type', 'application/json').send(JSON.stringify(body));
}

function send(step: Step, known: Known, headers: Record<string, string>): request.Test {
  const app = request(testApp.app);
  const customer = 'customer' in step && step.customer !== null ? pickId(step.customer, known.customers) : undefined;
  switch (step.op) {
    case 'createCustomer':
      return json(app.post('/v1/customers').set(headers), step.body);
    case 'findCustomers':
      return app.get('/v1/customers').query({ externalReferenceId: step.reference }).set(headers);
    case 'getCustomer':
      return app.get(`/v1/customers/${customer}`).set(headers);
    case 'saveCard':
      return json(app.post(`/v1/customers/${customer}/payment-methods`).set(headers), step.body);
    case 'listCards':
      return app.get(`/v1/customers/${customer}/payment-methods`).set(headers);
    case 'deleteCard':
      return app.delete(`/v1/customers/${customer}/payment-methods/${pickId(step.card, known.cards)}`).set(headers);
    case 'setDefault': {
      const body = { paymentMethodId: pickId(step.card, known.cards), contextName: step.context };
      return json(app.post(`/v1/customers/${customer}/payment-methods/defaults`).set(headers), step.mutate ? { ...body, paymentMethodId: 7 } : body);
    }
    case 'getDefault':
      return app.get(`/v1/customers/${customer}/payment-methods/defaults/${encodeURIComponent(step.context)}`).set(headers);
    case 'deleteDefault':
      return app.delete(`/v1/customers/${customer}/payment-methods/defaults/${encodeURIComponent(step.context)}`).set(headers);
    case 'createIntent': {
      const body = step.body !== null && typeof step.body === 'object' && !Array.isArray(step.body) && customer !== undefined ? { ...step.body, customerId: customer } : step.body;
      return json(app.post('/v1/payment-intents').set(headers), body);
    }
    case 'getIntent':
      return app.get(`/v1/payment-intents/${pickId(step.intent, known.intents)}`).set(headers);
    case 'cancelIntent':
      return app.post(`/v1/payment-intents/${pickId(step.intent, known.intents)}/cancel`).set(headers);
  }
}

/** Every business row, in a stable order: what a 4xx must leave exactly as it was. */
async function snapshot(): Promise<string> {
  const tables: Array<[string, string[]]> = [
    ['customers', ['location_id', 'id']],
    ['payment_methods', ['location_id', 'id']],
    ['default_payment_methods', ['location_id', 'customer_id', 'context_name']],
    ['payment_intents', ['location_id', 'id']],
  ];
  const rows = await Promise.all(tables.map(([table, order]) => testApp.db.knex(table).select('*').orderBy(order)));
  return JSON.stringify(rows);
}

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

async function checkInvariants(step: Step, caller: Caller, response: request.Response, before: string): Promise<void> {
  expect(response.status).toBeLessThan(500);
  expect(takeContractViolations()).toEqual([]);
  if (response.status >= 400) expect(await snapshot()).toBe(before);

  // `results` is the length of the list it counts.
  const body = response.body as Record<string, unknown>;
  if (typeof body?.results === 'number') {
    const list = (body.customers ?? body.paymentMethods) as unknown[];
    expect(body.results).toBe(list.length);
  }

  // A location never sees another's records: every id a 2xx answer names is the caller location's.
  if (response.status < 300) {
    const ids = new Set(JSON.stringify(body).match(UUID) ?? []);
    for (const id of ids) {
      const elsewhere = await Promise.all(
        ['customers', 'payment_methods', 'payment_intents'].map((table) => testApp.db.knex(table).where({ id }).whereNot({ location_id: caller.location }).first()),
      );
      expect({ step: step.op, id, elsewhere: elsewhere.filter(Boolean) }).toEqual({ step: step.op, id, elsewhere: [] });
    }
  }

  // A default always points at a live card of that customer, in its location.
  const dangling = await testApp.db.knex.raw(`
    select count(*)::int as count from default_payment_methods d
    where not exists (select 1 from payment_methods p
                      where p.location_id = d.location_id and p.id = d.payment_method_id and p.customer_id = d.customer_id)`);
  expect((dangling.rows as Array<{ count: number }>)[0]?.count).toBe(0);

  // A location holds at most one customer per externalReferenceId.
  const shared = await testApp.db.knex.raw(`
    select count(*)::int as count from (
      select 1 from customers where external_reference_id is not null
      group by location_id, external_reference_id having count(*) > 1) shared`);
  expect((shared.rows as Array<{ count: number }>)[0]?.count).toBe(0);
}

function remember(step: Step, response: request.Response, known: Known): void {
  if (response.status >= 300) return;
  const id = (response.body as { id?: unknown }).id;
  if (typeof id !== 'string') return;
  if (step.op === 'createCustomer') known.customers.push(id);
  if (step.op === 'saveCard') known.cards.push(id);
  if (step.op === 'createIntent') known.intents.push(id);
}

describe('fuzz: request sequences across the whole API', () => {
  it(`keeps every invariant after every step (${RUNS} sequences, seed ${SEED})`, async () => {
    // Logged so that a failure in CI can be replayed with FUZZ_SEED.
    process.stdout.write(`fuzz: ${RUNS} runs, seed ${SEED}\n`);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(stepArbitrary, callerArbitrary), { minLength: 1, maxLength: 25 }), async (steps) => {
        const known: Known = { customers: [], cards: [], intents: [] };
        takeContractViolations();
        for (const [step, caller] of steps) {
          const before = await snapshot();
          const response = await send(step, known, await headersFor(caller as Caller));
          await checkInvariants(step, caller as Caller, response, before);
          remember(step, response, known);
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);
});
