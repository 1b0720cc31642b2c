/**
 * The hand-written equivalents of confirm, capture and refund: the same writes as the
 * service, its events included, and the sandbox processor's own rows. The
 * contract fixes their shape: confirm's PROCESSING commits before the
 * processor is asked (so a crash leaves it recoverable), and the answer is
 * recorded in a second transaction guarded by the status and attempt; the
 * processor's statements run between, on no transaction, as the sandbox's do.
 * Every card is approved here (the sandbox declines the seeded cards whose
 * last four are test cards, about one in 2,000: the service does that work).
 */
import express, { type Express, type Request } from 'express';
import { v7 as uuidv7 } from 'uuid';
import type { PoolClient } from 'pg';
import { inTransaction, insertEvents, location, pool, verify } from './hand-written-common';
import { writeCaptureLine, writeRefundLine } from './hand-written-ledger';

const CAPTURE_WINDOW_MS = 86_400_000;

interface IntentRow {
  id: string;
  customer_id: string | null;
  amount: number;
  currency: string;
  status: string;
  payment_attempts: number;
  processor_reference: string | null;
  latest_payment: { id: string; status: string; amount: number; createdAt: string; card: unknown } | null;
  external_reference_id: string | null;
  created_at: Date;
}

const INTENT_COLUMNS = 'id, customer_id, amount, currency, status, payment_attempts, processor_reference, latest_payment, external_reference_id, created_at';

const intentView = (intent: IntentRow) => ({
  id: intent.id,
  externalReferenceId: intent.external_reference_id,
  amount: intent.amount,
  currency: intent.currency,
  status: intent.status,
  customerId: intent.customer_id,
  latestPayment: intent.latest_payment,
  creationDate: intent.created_at.toISOString(),
});

/** A guarded move and its event, in one transaction: nothing if another request moved the intent first. */
async function moveIntent(
  locationId: string,
  intent: IntentRow,
  set: string,
  values: unknown[],
  event: string,
  alsoRun?: (client: PoolClient) => Promise<unknown>,
): Promise<IntentRow | undefined> {
  return inTransaction(async (client) => {
    const moved = (
      await client.query(
        `update payment_intents set ${set}, updated_at = now()
          where location_id = $1 and id = $2 and status = $3 and payment_attempts = $4 returning ${INTENT_COLUMNS}`,
        [locationId, intent.id, intent.status, intent.payment_attempts, ...values],
      )
    ).rows[0] as IntentRow | undefined;
    if (moved !== undefined) {
      await insertEvents(client, locationId, [
        { type: event, customerId: moved.customer_id, data: { object: intentView(moved), previous: { status: intent.status } } },
      ]);
      if (alsoRun !== undefined) await alsoRun(client);
    }
    return moved;
  });
}

/** The sandbox's memory of an answer: inserted once per key, replayed after. */
async function rememberOperation(
  locationId: string,
  key: string,
  operation: string,
  amount: number | null,
  outcome: unknown,
  state: string | null,
): Promise<void> {
  await pool.query(
    `insert into sandbox_processor_operations (location_id, idempotency_key, operation, amount, outcome, state, capture_fails, captured_amount)
     values ($1, $2, $3, $4, $5, $6, false, null) on conflict (location_id, idempotency_key) do nothing returning outcome`,
    [locationId, key, operation, amount, JSON.stringify(outcome), state],
  );
}

async function confirm(request: Request): Promise<IntentRow | undefined> {
  const locationId = location(request);
  const processing = await inTransaction(async (client) => {
    const intent = (
      await client.query(`select ${INTENT_COLUMNS} from payment_intents where location_id = $1 and id = $2 for update`, [locationId, request.params.id])
    ).rows[0] as IntentRow | undefined;
    if (intent === undefined || intent.status !== 'REQUIRES_PAYMENT_METHOD') return undefined;
    const card = (
      await client.query(
        'select id, card_brand, last_four, exp_month, exp_year from payment_methods where location_id = $1 and customer_id = $2 and id = $3 for update',
        [locationId, intent.customer_id, (request.body as { paymentMethodId: string }).paymentMethodId],
      )
    ).rows[0];
    if (card === undefined) return undefined;
    const payment = {
      id: uuidv7(),
      status: 'PENDING',
      amount: intent.amount,
      createdAt: new Date().toISOString(),
      card: { brand: card.card_brand, lastFour: card.last_four, expiry: { month: card.exp_month, year: card.exp_year } },
    };
    const moved = (
      await client.query(
        `update payment_intents set status = 'PROCESSING', payment_method_id = $3, payment_attempts = payment_attempts + 1, latest_payment = $4,
                last_payment_error = null, updated_at = now()
          where location_id = $1 and id = $2 returning ${INTENT_COLUMNS}`,
        [locationId, intent.id, card.id, JSON.stringify(payment)],
      )
    ).rows[0] as IntentRow;
    await insertEvents(client, locationId, [
      { type: 'payment_intent.processing', customerId: moved.customer_id, data: { object: intentView(moved), previous: { status: intent.status } } },
    ]);
    return moved;
  });
  if (processing === undefined) return undefined;
  const key = `${processing.id}:${processing.payment_attempts}`;
  await rememberOperation(locationId, key, 'authorize', processing.amount, { status: 'approved', reference: key, captured: false }, 'authorized');
  const payment = { ...processing.latest_payment, status: 'AUTHORIZED' };
  return moveIntent(
    locationId,
    processing,
    `status = 'REQUIRES_CAPTURE', processor_reference = $5, latest_payment = $6, capture_before = $7`,
    [key, JSON.stringify(payment), new Date(Date.now() + CAPTURE_WINDOW_MS)],
    'payment_intent.requires_capture',
    // The card that paid: its last use, in the move's transaction.
    (client) =>
      client.query(
        'update payment_methods set last_used_at = now() where location_id = $1 and id = (select payment_method_id from payment_intents where location_id = $1 and id = $2)',
        [locationId, processing.id],
      ),
  );
}

async function capture(request: Request): Promise<IntentRow | undefined> {
  const locationId = location(request);
  const intent = (await pool.query(`select ${INTENT_COLUMNS} from payment_intents where location_id = $1 and id = $2`, [locationId, request.params.id]))
    .rows[0] as IntentRow | undefined;
  if (intent === undefined || intent.status !== 'REQUIRES_CAPTURE' || intent.latest_payment === null) return undefined;
  const key = `${intent.id}:${intent.payment_attempts}:capture`;
  const amount = intent.latest_payment.amount;
  // The sandbox: a replay of the key, the authorization, its move, the answer remembered.
  const replayed = await pool.query('select outcome from sandbox_processor_operations where location_id = $1 and idempotency_key = $2', [locationId, key]);
  if (replayed.rowCount !== 0) return undefined;
  await pool.query(
    `select state, capture_fails, captured_amount from sandbox_processor_operations
      where location_id = $1 and idempotency_key = $2 and operation = 'authorize' and state is not null`,
    [locationId, intent.processor_reference],
  );
  await pool.query(
    `update sandbox_processor_operations set state = 'captured', captured_amount = $3
      where location_id = $1 and idempotency_key = $2 and operation = 'authorize' and state = 'authorized'`,
    [locationId, intent.processor_reference, amount],
  );
  await rememberOperation(locationId, key, 'capture', amount, { status: 'captured', amount }, null);
  const payment = { ...intent.latest_payment, status: 'CAPTURED', amount };
  return moveIntent(
    locationId,
    intent,
    `status = 'SUCCEEDED', latest_payment = $5, capture_before = null, amount_captured = $6, captured_at = now()`,
    [JSON.stringify(payment), amount],
    'payment_intent.succeeded',
    // The capture's ledger line, as the service writes it with the move.
    (client) => writeCaptureLine(client, locationId, intent.id),
  );
}

interface RefundRow {
  id: string;
  payment_intent_id: string;
  amount: number;
  reason: string | null;
  status: string;
  failure_code: string | null;
  created_at: Date;
}

const REFUND_WINDOW_MS = 90 * 86_400_000;
const refundView = (refund: RefundRow) => ({
  id: refund.id,
  paymentIntentId: refund.payment_intent_id,
  amount: refund.amount,
  reason: refund.reason,
  status: refund.status,
  failureCode: refund.failure_code,
  createdAt: refund.created_at.toISOString(),
});

/**
 * A refund of all that is left: its share taken from the intent with the
 * PENDING refund and its event in one transaction; the sandbox asked on no
 * transaction; its answer recorded with its event in a second one.
 */
async function refund(request: Request): Promise<RefundRow | undefined> {
  const locationId = location(request);
  const intent = (
    await pool.query(
      `select status, amount_captured, amount_refunded, amount_disputed, captured_at, processor_reference from payment_intents where location_id = $1 and id = $2`,
      [locationId, request.params.id],
    )
  ).rows[0] as
    { status: string; amount_captured: number; amount_refunded: number; amount_disputed: number; captured_at: Date; processor_reference: string } | undefined;
  if (intent === undefined || intent.status !== 'SUCCEEDED' || Date.now() - intent.captured_at.getTime() > REFUND_WINDOW_MS) return undefined;
  // What chargebacks hold is not refundable, as the service's guard says (issue 56).
  const amount = intent.amount_captured - intent.amount_refunded - intent.amount_disputed;
  if (amount === 0) return undefined;
  const pending = await inTransaction(async (client) => {
    const taken = (
      await client.query(
        `update payment_intents set amount_refunded = amount_refunded + $3, updated_at = now()
          where location_id = $1 and id = $2 and status = 'SUCCEEDED' and amount_refunded + amount_disputed + $3 <= amount_captured returning customer_id`,
        [locationId, request.params.id, amount],
      )
    ).rows[0] as { customer_id: string | null } | undefined;
    if (taken === undefined) return undefined;
    const made = (
      await client.query(
        `insert into refunds (location_id, id, payment_intent_id, amount, reason, status) values ($1, $2, $3, $4, null, 'PENDING')
         returning id, payment_intent_id, amount, reason, status, failure_code, created_at`,
        [locationId, uuidv7(), request.params.id, amount],
      )
    ).rows[0] as RefundRow;
    await insertEvents(client, locationId, [{ type: 'refund.created', customerId: taken.customer_id, data: { object: refundView(made), previous: null } }]);
    // The refund's ledger line, as the service writes it with the PENDING refund.
    await writeRefundLine(client, locationId, made.id);
    return { refund: made, customerId: taken.customer_id };
  });
  if (pending === undefined) return undefined;
  // The sandbox: a replay of the key, the captured authorization, the answer remembered.
  await pool.query('select outcome from sandbox_processor_operations where location_id = $1 and idempotency_key = $2', [locationId, pending.refund.id]);
  await pool.query(
    `select state, capture_fails, captured_amount from sandbox_processor_operations
      where location_id = $1 and idempotency_key = $2 and operation = 'authorize' and state is not null`,
    [locationId, intent.processor_reference],
  );
  await pool.query(
    `insert into sandbox_processor_operations (location_id, idempotency_key, operation, amount, outcome, state, capture_fails, captured_amount, settles_at)
     values ($1, $2, 'refund', $3, $4, null, false, null, null) on conflict (location_id, idempotency_key) do nothing returning outcome`,
    [locationId, pending.refund.id, amount, JSON.stringify({ status: 'succeeded' })],
  );
  return inTransaction(async (client) => {
    const settled = (
      await client.query(
        `update refunds set status = 'SUCCEEDED', failure_code = null, updated_at = now()
          where location_id = $1 and id = $2 and status = 'PENDING' returning id, payment_intent_id, amount, reason, status, failure_code, created_at`,
        [locationId, pending.refund.id],
      )
    ).rows[0] as RefundRow | undefined;
    if (settled !== undefined)
      await insertEvents(client, locationId, [
        { type: 'refund.succeeded', customerId: pending.customerId, data: { object: refundView(settled), previous: { status: 'PENDING' } } },
      ]);
    return settled;
  });
}

export function registerCheckoutRoutes(app: Express): void {
  app.post('/v1/payment-intents/:id/confirm', express.json(), async (request, response) => {
    await verify(request);
    const intent = await confirm(request);
    if (intent === undefined) return void response.status(409).json({ code: 'PAYMENT_INTENT_STATUS_CONFLICT' });
    response.json(intentView(intent));
  });

  app.post('/v1/payment-intents/:id/capture', express.json(), async (request, response) => {
    await verify(request);
    const intent = await capture(request);
    if (intent === undefined) return void response.status(409).json({ code: 'PAYMENT_INTENT_STATUS_CONFLICT' });
    response.json(intentView(intent));
  });

  app.post('/v1/payment-intents/:id/refunds', express.json(), async (request, response) => {
    await verify(request);
    const made = await refund(request);
    if (made === undefined) return void response.status(409).json({ code: 'REFUND_EXCEEDS_CAPTURED' });
    response.status(201).json(refundView(made));
  });
}
