/**
 * Ceilings (b) and the hand-written writes: each route verifies the ES256
 * bearer token with jose and runs the service's own SQL through a `pg` Pool,
 * with no other middleware (hand-written-common.ts). What the service's
 * routes would cost with nothing but their essential work. The reads and the
 * first two writes are here; a customer's lifetime (card update, erasure,
 * webhook endpoint) and the checkout (confirm, capture) in their own files.
 *   PORT, DATABASE_URL, DB_POOL_MAX, CEILING_JWKS, CEILING_ISSUER, CEILING_AUDIENCE
 */
import express from 'express';
import { v7 as uuidv7 } from 'uuid';
import { cardTypeOf } from '../../src/payment-methods/card-brand';
import { CUSTOMER_CARDS } from '../../src/payment-methods/payment-methods.repository';
import { registerCheckoutRoutes } from './hand-written-checkout';
import { inTransactionWithEvent, location, pool, verify } from './hand-written-common';
import { registerLifetimeRoutes } from './hand-written-lifetime';

const app = express();

app.get('/v1/customers/:id/payment-methods', async (request, response) => {
  await verify(request);
  // The service's statement, in the order a payor uses the cards (defaults first, then the last used).
  const { rows } = await pool.query(CUSTOMER_CARDS.positionalText, [location(request), request.params.id, location(request), request.params.id]);
  const cards = rows.filter((row) => row.id !== null);
  response.json({
    results: cards.length,
    // The same fields as the service's answer: a smaller one would cost the load generator less to read, on the same cores.
    paymentMethods: cards.map((row) => ({
      id: row.id,
      type: row.type,
      cardType: cardTypeOf(row.card_brand),
      lastFour: row.last_four,
      month: row.exp_month,
      year: row.exp_year,
      card: { lastFour: row.last_four, expiry: { month: row.exp_month, year: row.exp_year }, type: row.card_brand },
      lastUsedAt: row.last_used_at === null ? null : row.last_used_at.toISOString(),
    })),
  });
});

app.get('/v1/customers/:id/payment-methods/defaults/:contextName', async (request, response) => {
  await verify(request);
  const { rows } = await pool.query(
    `select d.payment_method_id, d.context_name
       from customers as c
       left join default_payment_methods as d on d.location_id = c.location_id and d.customer_id = c.id and d.context_name = $3
      where c.location_id = $1 and c.id = $2 limit 1`,
    [location(request), request.params.id, request.params.contextName],
  );
  response.json({ paymentMethodId: rows[0]?.payment_method_id, contextName: rows[0]?.context_name });
});

app.get('/v1/payment-intents/:id', async (request, response) => {
  await verify(request);
  const { rows } = await pool.query('select * from payment_intents where location_id = $1 and id = $2', [location(request), request.params.id]);
  const intent = rows[0];
  response.json({
    // Every field of the service's answer, as the contract has it.
    id: intent.id,
    externalReferenceId: intent.external_reference_id,
    sessionSecret: intent.session_secret,
    amount: intent.amount,
    currency: intent.currency,
    captureMethod: intent.capture_method,
    status: intent.status,
    creationDate: intent.created_at.toISOString(),
    customerId: intent.customer_id,
    amountDetails: { tip: intent.tip },
    email: intent.email,
    paymentMethodConfigurationDetails: intent.payment_method_configuration_id === null ? null : { id: intent.payment_method_configuration_id },
    standingInstructionType: intent.standing_instruction_type,
    offSession: intent.off_session,
    latestPayment: intent.latest_payment,
    mandateId: intent.mandate_id,
    paymentMethodId: intent.payment_method_id,
    lastPaymentError: intent.last_payment_error,
    cancellationReason: intent.cancellation_reason,
  });
});

app.post('/v1/customers/:id/payment-methods/defaults', express.json(), async (request, response) => {
  await verify(request);
  const row = await inTransactionWithEvent(
    request,
    async (client) =>
      (
        await client.query(
          `with previous as (
             select payment_method_id from default_payment_methods
              where location_id = $2 and customer_id = $3 and context_name = $1 for update)
           insert into default_payment_methods (location_id, customer_id, context_name, payment_method_id)
           select pm.location_id, pm.customer_id, $1, pm.id
             from payment_methods pm left join previous on true
            where pm.location_id = $2 and pm.customer_id = $3 and pm.id = $4
           on conflict (location_id, customer_id, context_name)
           do update set payment_method_id = excluded.payment_method_id, updated_at = now()
           returning payment_method_id, context_name, (select payment_method_id from previous) as previous_payment_method_id`,
          [request.body.contextName, location(request), request.params.id, request.body.paymentMethodId],
        )
      ).rows[0] as { payment_method_id: string; context_name: string; previous_payment_method_id: string | null } | undefined,
    (row) =>
      row.previous_payment_method_id === row.payment_method_id
        ? undefined
        : {
            type: 'default_payment_method.set',
            customerId: request.params.id as string,
            data: {
              object: { paymentMethodId: row.payment_method_id, contextName: row.context_name },
              previous: row.previous_payment_method_id === null ? null : { paymentMethodId: row.previous_payment_method_id },
            },
          },
  );
  response.json({ paymentMethodId: row?.payment_method_id, contextName: row?.context_name });
});

app.post('/v1/customers', express.json(), async (request, response) => {
  await verify(request);
  const row = await inTransactionWithEvent(
    request,
    async (client) =>
      (
        await client.query(
          `insert into customers (location_id, id, external_reference_id, description) values ($1, $2, $3, $4)
           returning id, external_reference_id, description`,
          [location(request), uuidv7(), request.body.externalReferenceId ?? null, request.body.description ?? null],
        )
      ).rows[0] as { id: string; external_reference_id: string | null; description: string | null },
    (row) => {
      const customer = { id: row.id, externalReferenceId: row.external_reference_id, description: row.description };
      return { type: 'customer.created', customerId: row.id, data: { object: customer, previous: null } };
    },
  );
  response.json({ id: row?.id, externalReferenceId: row?.external_reference_id, description: row?.description });
});

registerLifetimeRoutes(app);
registerCheckoutRoutes(app);

const port = Number(process.env.PORT);
app.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ msg: 'listening', port })}\n`));
// An orderly exit on SIGTERM, so that `node --cpu-prof` (bench --profile) writes its profile.
process.once('SIGTERM', () => process.exit(0));
