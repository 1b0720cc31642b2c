import { locationCount, sqlSeedUuid } from './ids';
import { seedStatements } from './seed';

/**
 * What a scenario uses up, one per request: a customer to erase, an intent to
 * confirm, an authorized intent to capture, a paid intent to refund. Before each measured turn the
 * bench seeds a fresh range of customers past the ones the other scenarios
 * pick from (seed.ts's shape: three cards, two defaults, one intent each), so
 * the service and its hand-written equivalent each get untouched rows.
 */
export type Consumable = 'customers' | 'intents' | 'authorized intents' | 'paid intents';

/**
 * Requests per second no write here reaches on these machines (the fastest,
 * a create, stays under 2,000): a turn of S seconds gets this many times S
 * rows, and running out shows as 404s and 409s, which fail the bench.
 */
export const CONSUMABLE_RATE_BOUND = 3_000;

/**
 * Customers from..to as seed.ts makes them; for 'authorized intents' their
 * intents then stand where a confirm with card 0 leaves them: REQUIRES_CAPTURE,
 * attempt 1, the sandbox holding the authorization (its key is the reference),
 * a capture window of a day (the sweep must not void them mid-run); for
 * 'paid intents', where a capture of all of it then leaves them: SUCCEEDED,
 * captured now, the sandbox's authorization captured.
 */
export function consumableStatements(kind: Consumable, from: number, to: number): string[] {
  const statements = seedStatements(from, to);
  if (kind !== 'authorized intents' && kind !== 'paid intents') return statements;
  const paid = kind === 'paid intents';
  const intent = sqlSeedUuid(`'intent-' || n`);
  const card = sqlSeedUuid(`'card-' || n || '-0'`);
  const location = `'bench-location-' || (n % ${locationCount()})`;
  return [
    ...statements,
    `update payment_intents as pi
        set payment_method_id = pm.id, payment_attempts = 1, processor_reference = pi.id || ':1',
            ${paid ? `status = 'SUCCEEDED', amount_captured = pi.amount, captured_at = now()` : `status = 'REQUIRES_CAPTURE', capture_before = now() + interval '1 day'`},
            latest_payment = jsonb_build_object('id', gen_random_uuid(), 'status', '${paid ? 'CAPTURED' : 'AUTHORIZED'}', 'amount', pi.amount, 'createdAt', now(),
              'card', jsonb_build_object('brand', pm.card_brand, 'lastFour', pm.last_four, 'expiry', jsonb_build_object('month', pm.exp_month, 'year', pm.exp_year)))
       from generate_series(${from}, ${to}) n
       join payment_methods pm on pm.location_id = ${location} and pm.id = ${card}
      where pi.location_id = ${location} and pi.id = ${intent}`,
    `insert into sandbox_processor_operations (location_id, idempotency_key, operation, amount, outcome, state, capture_fails, captured_amount)
     select pi.location_id, pi.id || ':1', 'authorize', pi.amount,
            jsonb_build_object('status', 'approved', 'reference', pi.id || ':1', 'captured', false), '${paid ? 'captured' : 'authorized'}', false,
            ${paid ? 'pi.amount' : 'null'}
       from generate_series(${from}, ${to}) n
       join payment_intents pi on pi.location_id = ${location} and pi.id = ${intent}`,
  ];
}
