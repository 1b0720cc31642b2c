import { randomUUID } from 'node:crypto';
import { migrationSource } from '../../../src/platform/db/migration-source';
import { openTestDatabase, type TestDatabase } from '../../support/test-database';

/**
 * The migrations that change what existing rows mean, applied to a database
 * that already holds rows written before them: what they keep, rewrite and drop.
 */
let db: TestDatabase;

/** Applies migrations one at a time up to and including `last`. */
async function migrateThrough(last: string): Promise<void> {
  for (;;) {
    const [, applied] = (await db.knex.migrate.up({ migrationSource })) as [number, string[]];
    if (applied.length === 0) throw new Error(`${last} was never reached`);
    if (applied.includes(last)) return;
  }
}

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';
const location = 'loc-existing';
const customerId = randomUUID();
const [oldCard, newCard] = [randomUUID(), randomUUID()];

const duplicatesLocation = 'loc-duplicates';
const [oldest, middle, youngest] = [randomUUID(), randomUUID(), randomUUID()];
const duplicates: Array<[string, string, string]> = [
  [middle, `crm-${NFD}`, '2026-02-01'],
  [oldest, `crm-${NFC}`, '2026-01-01'],
  [youngest, `crm-${NFC}`, '2026-03-01'],
];
const cardIds = new Map(duplicates.map(([id]) => [id, randomUUID()]));
const cardOf = (id: string): string => cardIds.get(id) as string;

beforeAll(async () => {
  db = await openTestDatabase({ migrate: false });
  await migrateThrough('20261123000000_rate_limits_and_idempotency_keys');
  const knex = db.knex;
  await knex('customers').insert({ location_id: location, id: customerId, external_reference_id: `ref-${NFD}\u200B` });
  const card = (id: string, fingerprint: string, updatedAt: string) => ({
    location_id: location,
    id,
    customer_id: customerId,
    type: 'CARD',
    card_brand: 'Visa',
    last_four: '4242',
    exp_month: '03',
    exp_year: '2099',
    fingerprint,
    updated_at: updatedAt,
  });
  await knex('payment_methods').insert([card(oldCard, `fp-${NFC}`, '2026-01-01'), card(newCard, `fp-${NFD}`, '2026-02-01')]);
  const binding = (contextName: string, paymentMethodId: string, updatedAt: string) => ({
    location_id: location,
    customer_id: customerId,
    context_name: contextName,
    payment_method_id: paymentMethodId,
    updated_at: updatedAt,
  });
  await knex('default_payment_methods').insert([
    binding(NFC, oldCard, '2026-01-01'),
    binding(NFD, newCard, '2026-02-01'),
    binding('web\u202E', oldCard, '2026-01-01'),
    binding('\u200B', oldCard, '2026-01-01'),
  ]);
  // Three customers of one location sharing a reference, two of them only once names are read in NFC; each with a card and a default.
  for (const [id, reference, createdAt] of duplicates) {
    await knex('customers').insert({ location_id: duplicatesLocation, id, external_reference_id: reference, created_at: createdAt });
    await knex('payment_methods').insert({
      location_id: duplicatesLocation,
      id: cardOf(id),
      customer_id: id,
      type: 'CARD',
      card_brand: 'Visa',
      last_four: '4242',
      exp_month: '03',
      exp_year: '2099',
      fingerprint: null,
    });
    await knex('default_payment_methods').insert({ location_id: duplicatesLocation, customer_id: id, context_name: 'web', payment_method_id: cardOf(id) });
  }
  await knex('idempotency_keys').insert({
    client_id: 'client',
    location_id: location,
    key: 'k',
    fingerprint: 'f',
    claim_token: randomUUID(),
    state: 'completed',
    response_status: 200,
    response_body: '{}',
    expires_at: knex.raw("now() + interval '1 day'"),
  });
  await db.knex.migrate.latest({ migrationSource });
}, 60_000);
afterAll(() => db.close());

describe('20261124000000_idempotency_keys_by_issuer', () => {
  it('gives stored keys this service’s own issuer, keeping their answers', async () => {
    expect(await db.knex('idempotency_keys').select('issuer', 'client_id', 'key', 'response_status')).toEqual([
      { issuer: 'urn:customer-payment-profiles', client_id: 'client', key: 'k', response_status: 200 },
    ]);
  });
});

describe('20261124010000_identifiers_in_nfc', () => {
  it('rewrites references in NFC without format characters', async () => {
    expect(await db.knex('customers').where({ location_id: location }).pluck('external_reference_id')).toEqual([`ref-${NFC}`]);
  });

  it('keeps the default set last where two context names become one, and loses no card', async () => {
    const defaults = await db
      .knex('default_payment_methods')
      .where({ location_id: location })
      .orderBy('context_name')
      .select('context_name', 'payment_method_id');
    expect(defaults).toEqual(
      [
        { context_name: NFC, payment_method_id: newCard },
        { context_name: 'web', payment_method_id: oldCard },
        // Made only of format characters: left as it was.
        { context_name: '\u200B', payment_method_id: oldCard },
      ].sort((a, b) => (a.context_name < b.context_name ? -1 : 1)),
    );
    expect(await db.knex('payment_methods').where({ location_id: location }).orderBy('id').pluck('id')).toEqual([oldCard, newCard].sort());
  });

  it('gives the fingerprint to the card saved last; the other card keeps everything else', async () => {
    const cards = await db.knex('payment_methods').select('id', 'fingerprint');
    expect(cards.find((card) => card.id === newCard)?.fingerprint).toBe(`fp-${NFC}`);
    expect(cards.find((card) => card.id === oldCard)?.fingerprint).toBeNull();
  });
});

describe('20261125000000_one_customer_per_reference', () => {
  it('leaves the reference with the oldest customer and clears it on the younger ones, recording each', async () => {
    const customers = await db.knex('customers').where({ location_id: duplicatesLocation }).select('id', 'external_reference_id');
    expect(customers.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
      [
        { id: oldest, external_reference_id: `crm-${NFC}` },
        { id: middle, external_reference_id: null },
        { id: youngest, external_reference_id: null },
      ].sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
    const recorded = await db
      .knex('customer_reference_duplicates')
      .where({ location_id: duplicatesLocation })
      .select('customer_id', 'external_reference_id', 'kept_by_customer_id');
    expect(recorded.sort((a, b) => (a.customer_id < b.customer_id ? -1 : 1))).toEqual(
      [
        { customer_id: middle, external_reference_id: `crm-${NFC}`, kept_by_customer_id: oldest },
        { customer_id: youngest, external_reference_id: `crm-${NFC}`, kept_by_customer_id: oldest },
      ].sort((a, b) => (a.customer_id < b.customer_id ? -1 : 1)),
    );
  });

  it('loses no card and no default', async () => {
    expect((await db.knex('payment_methods').where({ location_id: duplicatesLocation }).pluck('id')).sort()).toEqual([...cardIds.values()].sort());
    const defaults = await db.knex('default_payment_methods').where({ location_id: duplicatesLocation }).select('customer_id', 'payment_method_id');
    expect(defaults.length).toBe(3);
    for (const binding of defaults) expect(binding.payment_method_id).toBe(cardOf(binding.customer_id));
  });

  it('holds one customer per reference from now on', async () => {
    await expect(db.knex('customers').insert({ location_id: duplicatesLocation, id: randomUUID(), external_reference_id: `crm-${NFC}` })).rejects.toMatchObject(
      { code: '23505' },
    );
  });
});
