import request from 'supertest';
import { seededCustomer } from '../../../bench/ids';
import { seedCustomers } from '../../../bench/seed';
import { IDEMPOTENCY_KEY_HEADER } from '../../../src/idempotency/idempotency-key';
import { SESSION_SECRET_HEADER } from '../../../src/auth/session-grant';
import { cardInput } from '../../factories/customers';
import { LOCATION_HEADER } from '../../factories/locations';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';
import { startTestApp, type TestApp } from '../../support/test-app';

/**
 * Every statement the API runs, captured while each operation (and each miss
 * that asks which 404 it was) is called once on a database seeded as the
 * benchmark seeds it, then run again under EXPLAIN ANALYZE (and rolled back):
 * none may read a table by a sequential scan, nor read rows only to filter
 * them out (an index that fits the lookup's prefix but not the lookup), or it
 * would slow down as the tables grow. Each location here holds 150 customers,
 * so a scan of a whole location would show. QUERY_PLANS_CUSTOMERS=100000
 * checks the same plans at the size the issues name (slower to seed).
 */
const CUSTOMERS = Number(process.env.QUERY_PLANS_CUSTOMERS ?? 3_000);
/** Rows a plan node may read and discard: a lookup that fits its index discards none. */
const MAX_ROWS_FILTERED_OUT = 10;

interface Statement {
  sql: string;
  bindings: unknown[];
}

let db: TestDatabase;
let testApp: TestApp;
const statements = new Map<string, Statement>();

beforeAll(async () => {
  db = await openTestDatabase();
  await seedCustomers((sql) => db.knex.raw(sql), 1, CUSTOMERS);
  // The shared-state tables grow too: a stored answer per keyed create, a counter per client and location.
  await db.knex.raw(`
    insert into idempotency_keys (issuer, client_id, location_id, key, fingerprint, claim_token, state, response_status, response_body, expires_at)
    select 'issuer-' || n % 2, 'client-' || n % 7, 'location-' || n % 20, 'key-' || n, md5(n::text), gen_random_uuid(), 'completed', 200, '{}', now() + interval '1 day'
      from generate_series(1, ${CUSTOMERS}) n`);
  await db.knex.raw(`insert into rate_limits (key, points, expire) select 'api:' || md5(n::text), 1, 0 from generate_series(1, ${CUSTOMERS}) n`);
  // References shared before the one-per-reference rule, as the migration recorded them.
  await db.knex.raw(`
    insert into customer_reference_duplicates (location_id, customer_id, external_reference_id, kept_by_customer_id)
    select location_id, id, 'dup-' || id, id from customers`);
  // Customers erased before, whose ids alone are kept.
  await db.knex.raw(`insert into erased_customers (location_id, id) select 'location-' || n % 20, gen_random_uuid() from generate_series(1, ${CUSTOMERS}) n`);
  // And the change log: ten events a customer (at most 100,000), as a location's history would hold them.
  await db.knex.raw(`
    insert into events (location_id, id, type, customer_id, data)
    select 'location-' || n % 20, gen_random_uuid(), 'customer.created', gen_random_uuid(), '{}'
      from generate_series(1, ${Math.min(CUSTOMERS * 10, 100_000)}) n`);
  // Intents moved away from a customer, whose erasure still covers them.
  await db.knex.raw(`
    insert into former_intent_customers (location_id, customer_id, payment_intent_id)
    select 'location-' || n % 20, gen_random_uuid(), gen_random_uuid() from generate_series(1, ${CUSTOMERS}) n`);
  // The sandbox processor's memory: an answer per confirm.
  await db.knex.raw(`
    insert into sandbox_processor_operations (location_id, idempotency_key, operation, amount, outcome, state)
    select 'location-' || n % 20, gen_random_uuid() || ':1', 'authorize', 100, '{}', 'captured' from generate_series(1, ${CUSTOMERS}) n`);
  // A mandate per card of one customer in three, half of them revoked.
  await db.knex.raw(`
    insert into mandates (location_id, id, customer_id, payment_method_id, standing_instruction_type, status, consent_accepted_at,
                          consent_text_version, card, created_at, revoked_at)
    select location_id, gen_random_uuid(), customer_id, id, 'RECURRING', case when active then 'ACTIVE' else 'INACTIVE' end, now(), 'v1',
           case when active then '{"brand":"VISA","lastFour":"4242","expMonth":"12","expYear":"2030"}'::jsonb end, now(),
           case when active then null else now() end
      from (select *, random() < 0.5 as active from payment_methods where hashtext(customer_id::text) % 3 = 0) cards`);
  // The sandbox clocks of many other locations (a shared sandbox).
  await db.knex.raw(`insert into sandbox_clocks (location_id, offset_ms) select 'clocked-location-' || n, n * 1000 from generate_series(1, ${CUSTOMERS}) n`);
  await db.knex.raw('analyze');
  testApp = await startTestApp({ database: db });
  db.knex.on('query', (query: { sql: string; bindings?: unknown[] }) => {
    if (!/^\s*(select|insert|update|delete|with)\b/i.test(query.sql)) return;
    statements.set(query.sql, { sql: query.sql, bindings: query.bindings ?? [] });
  });
  await callEveryOperation();
}, 120_000);
afterAll(() => testApp?.close());

async function callEveryOperation(): Promise<void> {
  const api = request(testApp.app);
  const one = seededCustomer(7);
  const other = seededCustomer(27); // the same location (27 % 20 = 7)
  const as = testApp.as(one.locationId);
  const customerPath = `/v1/customers/${one.id}`;

  await api.post('/v1/customers').set(as).send({ externalReferenceId: 'plans' }).expect(200);
  await api
    .post('/v1/customers')
    .set({ ...as, [IDEMPOTENCY_KEY_HEADER]: 'plans-key' })
    .send({ externalReferenceId: 'plans' })
    .expect(200);
  await api.get('/v1/customers?externalReferenceId=ext-7').set(as).expect(200);
  await api.get('/v1/customers?limit=5').set(as).expect(200);
  await api.get(`/v1/customers?limit=5&startingAfter=${one.id}`).set(as).expect(200);
  await api.get(customerPath).set(as).expect(200);
  await api.patch(customerPath).set(as).send({ description: 'plans' }).expect(200);
  const saved = await api.post(`${customerPath}/payment-methods`).set(as).send(cardInput()).expect(201);
  await api.get(`${customerPath}/payment-methods`).set(as).expect(200);
  await api.post(`${customerPath}/payment-methods/defaults`).set(as).send({ paymentMethodId: one.cardIds[2], contextName: 'kiosk' }).expect(200);
  await api.get(`${customerPath}/payment-methods/defaults/kiosk`).set(as).expect(200);
  await api.delete(`${customerPath}/payment-methods/defaults/kiosk`).set(as).expect(200);
  await api.delete(`${customerPath}/payment-methods/defaults/kiosk`).set(as).expect(404);
  await api.delete(`${customerPath}/payment-methods/${saved.body.id}`).set(as).expect(204);
  // Another customer's card: the misses that tell which 404 it was.
  await api.delete(`${customerPath}/payment-methods/${other.cardIds[0]}`).set(as).expect(404);
  await api.post(`${customerPath}/payment-methods/defaults`).set(as).send({ paymentMethodId: other.cardIds[0], contextName: 'kiosk' }).expect(404);
  const intent = await api
    .post('/v1/payment-intents')
    .set(as)
    .send({ amount: 1200, currency: 'USD', externalReferenceId: 'order-plans', customerId: one.id })
    .expect(201);
  await api.get(`/v1/payment-intents/${one.intentId}`).set(as).expect(200);
  // The browser side: a token with only the integration's read scope, and the intent's session secret.
  const browserToken = await testApp.tokenFor({ scopes: ['simplified-payments-integration:read'], locations: [one.locationId] });
  await api
    .get(`${customerPath}/payment-methods`)
    .set({ Authorization: `Bearer ${browserToken}`, [LOCATION_HEADER]: one.locationId, [SESSION_SECRET_HEADER]: intent.body.sessionSecret })
    .expect(200);
  await api.post(`/v1/payment-intents/${intent.body.id}`).set(as).send({ email: 'plans@example.com', paymentMethodId: one.cardIds[0] }).expect(200);
  // Given to another customer: the first one's erasure still covers it.
  await api.post(`/v1/payment-intents/${intent.body.id}`).set(as).send({ customerId: other.id }).expect(200);
  await api.post(`/v1/payment-intents/${intent.body.id}/cancel`).set(as).expect(200);
  // A checkout: confirmed and captured; another confirmed and voided; the lists of intents; the two sweeps.
  for (const end of ['capture', 'cancel']) {
    const paid = await api
      .post('/v1/payment-intents')
      .set(as)
      .send({ amount: 900, currency: 'USD', externalReferenceId: 'order-plans', customerId: one.id })
      .expect(201);
    await api
      .post(`/v1/payment-intents/${paid.body.id}/confirm`)
      .set(as)
      .send({ paymentMethodId: one.cardIds[1] })
      .expect(200, /REQUIRES_CAPTURE/);
    await api.post(`/v1/payment-intents/${paid.body.id}/${end}`).set(as).send({}).expect(200);
  }
  // Cards on file: a mandate, its reads, an off-session charge on it and one on the context's default card, its revocation.
  const mandate = await api
    .post(`${customerPath}/mandates`)
    .set(as)
    .send({
      paymentMethodId: one.cardIds[1],
      standingInstructionType: 'RECURRING',
      contextName: 'plans',
      consent: { acceptedAt: '2026-11-01T00:00:00Z', textVersion: 'v1' },
    })
    .expect(201);
  await api.get(`${customerPath}/mandates?limit=5`).set(as).expect(200);
  await api.get(`${customerPath}/mandates?limit=5&startingAfter=${mandate.body.id}`).set(as).expect(200);
  await api.get(`${customerPath}/mandates/${mandate.body.id}`).set(as).expect(200);
  const offSession = await api
    .post('/v1/payment-intents')
    .set(as)
    .send({ amount: 900, currency: 'USD', externalReferenceId: 'order-plans', customerId: one.id, offSession: true, mandateId: mandate.body.id })
    .expect(201);
  await api
    .post(`/v1/payment-intents/${offSession.body.id}/confirm`)
    .set(as)
    .send({})
    .expect(200, /REQUIRES_CAPTURE/);
  const byContext = await api
    .post('/v1/payment-intents')
    .set(as)
    .send({ amount: 900, currency: 'USD', externalReferenceId: 'order-plans', customerId: one.id, contextName: 'online-ordering' })
    .expect(201);
  await api.post(`/v1/payment-intents/${byContext.body.id}/confirm`).set(as).send({}).expect(200);
  await api.post(`${customerPath}/mandates/${mandate.body.id}/revoke`).set(as).send({}).expect(200);
  await api.get('/v1/payment-intents?limit=5').set(as).expect(200);
  await api.get(`/v1/payment-intents?limit=5&startingAfter=${intent.body.id}`).set(as).expect(200);
  await api.get('/v1/payment-intents?status=SUCCEEDED').set(as).expect(200);
  await api.get(`/v1/payment-intents?customerId=${one.id}`).set(as).expect(200);
  await api.get('/v1/payment-intents?externalReferenceId=order-plans').set(as).expect(200);
  await testApp.checkout.voidExpiredAuthorizations(db.knex);
  await testApp.checkout.recoverProcessing(db.knex, 60);
  await testApp.paymentIntents.expireDue(db.knex);
  // The change log those calls wrote, read back.
  await api.get('/v1/events?limit=5').set(as).expect(200);
  await api.get(`${customerPath}/events?limit=5`).set(as).expect(200);
  // Last, as it removes what the calls above used: an erasure.
  await api.delete(`/v1/customers/${other.id}`).set(as).expect(200);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** What is wrong with a plan: its sequential scans, and nodes that read rows only to drop them. */
function planFaults(node: PlanNode): string[] {
  const where = node['Index Name'] ?? node['Relation Name'] ?? node['Node Type'];
  const filteredOut = (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
  const own = [
    ...(node['Node Type'] === 'Seq Scan' ? [`Seq Scan on ${node['Relation Name'] ?? '?'}`] : []),
    ...(filteredOut > MAX_ROWS_FILTERED_OUT ? [`${node['Node Type']} on ${where} discarded ${filteredOut} rows`] : []),
  ];
  return [...own, ...(node.Plans ?? []).flatMap(planFaults)];
}

async function planOf(runner: { raw: typeof db.knex.raw }, options: string, sql: string, bindings: unknown[]): Promise<PlanNode> {
  const result = (await runner.raw(`explain (${options}) ${sql}`, bindings as never[])) as { rows: Array<{ 'QUERY PLAN': unknown }> };
  const raw = result.rows[0]?.['QUERY PLAN'];
  const [plan] = (typeof raw === 'string' ? JSON.parse(raw) : raw) as Array<{ Plan: PlanNode }>;
  return (plan as { Plan: PlanNode }).Plan;
}

/**
 * The statement's plan as it ran, its changes rolled back. An insert of an id
 * that now exists cannot run twice: its plan is read without running it.
 */
async function analyzedPlan(sql: string, bindings: unknown[]): Promise<PlanNode> {
  try {
    let plan: PlanNode | undefined;
    await db.knex.transaction(async (trx) => {
      plan = await planOf(trx, 'analyze, format json', sql, bindings);
      await trx.rollback();
    });
    return plan as PlanNode;
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    return planOf(db.knex, 'format json', sql, bindings);
  }
}

describe('query plans on a seeded database', () => {
  it('captured the statements of every operation', () => {
    const tables = [
      'customers',
      'payment_methods',
      'default_payment_methods',
      'payment_intents',
      'idempotency_keys',
      'rate_limits',
      'sandbox_processor_operations',
    ];
    for (const table of tables) expect([...statements.keys()].some((sql) => sql.includes(table))).toBe(true);
    expect(statements.size).toBeGreaterThanOrEqual(15);
  });

  it('reads no table by a sequential scan, and no rows only to filter them out', async () => {
    const faults: string[] = [];
    for (const { sql, bindings } of statements.values()) {
      // Knex reports native SQL ($1, $2, …): back to its own `?`, the bindings in the order they appear.
      const ordered: unknown[] = [];
      const knexSql = sql.replace(/\$(\d+)/g, (_match, index: string) => {
        ordered.push(bindings[Number(index) - 1]);
        return '?';
      });
      const found = planFaults(await analyzedPlan(knexSql, ordered));
      if (found.length > 0) faults.push(`${found.join(', ')} in: ${sql}`);
    }
    expect(faults).toEqual([]);
  });
});
