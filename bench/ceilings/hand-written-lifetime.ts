/**
 * The hand-written equivalents of a customer's lifetime writes, each with
 * its events in one transaction: a card's renewal (PATCH), a customer's
 * erasure (DELETE), and a webhook endpoint's creation (which records no
 * event, and counts the location's endpoints under its lock and seals its secret as the service does).
 */
import { randomBytes } from 'node:crypto';
import express, { type Express } from 'express';
import type { PoolClient } from 'pg';
import { v7 as uuidv7 } from 'uuid';
import { DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION } from '../../src/platform/config';
import { SecretBox, secretContext, withNewKey } from '../../src/platform/secrets/secret-box';
import { inTransaction, insertEvents, location, pool, verify, type HandWrittenEvent } from './hand-written-common';

/** The service's own sealing (AES-256-GCM, the record as associated data) under a key of the ceiling's own: the service's keyring is not its. */
const secrets = new SecretBox(withNewKey());

interface CardRow {
  id: string;
  customer_id: string;
  card_brand: string;
  last_four: string;
  exp_month: string;
  exp_year: string;
}

const CARD_COLUMNS = 'id, customer_id, card_brand, last_four, exp_month, exp_year';

const cardData = (card: CardRow) => ({
  id: card.id,
  type: 'CARD',
  lastFour: card.last_four,
  month: card.exp_month,
  year: card.exp_year,
  card: { lastFour: card.last_four, expiry: { month: card.exp_month, year: card.exp_year }, type: card.card_brand },
});

async function renewCard(client: PoolClient, locationId: string, customerId: string, id: string, expiry: { month?: string; year?: string }) {
  const current = (
    await client.query(`select ${CARD_COLUMNS} from payment_methods where location_id = $1 and customer_id = $2 and id = $3 for update`, [
      locationId,
      customerId,
      id,
    ])
  ).rows[0] as CardRow | undefined;
  if (current === undefined) return undefined;
  const updated = (
    await client.query(
      `update payment_methods set exp_month = coalesce($4, exp_month), exp_year = coalesce($5, exp_year), updated_at = now()
        where location_id = $1 and customer_id = $2 and id = $3 returning ${CARD_COLUMNS}`,
      [locationId, customerId, id, expiry.month ?? null, expiry.year ?? null],
    )
  ).rows[0] as CardRow;
  if (updated.exp_month !== current.exp_month || updated.exp_year !== current.exp_year) {
    const previous = { month: current.exp_month, year: current.exp_year, card: { expiry: { month: current.exp_month, year: current.exp_year } } };
    await insertEvents(client, locationId, [{ type: 'payment_method.updated', customerId, data: { object: cardData(updated), previous } }]);
  }
  return updated;
}

/** The service's erasure, statement for statement: defaults, cards, intents cut (live ones canceled), events scrubbed, stored answers forgotten, the id kept. */
async function eraseCustomer(client: PoolClient, locationId: string, id: string): Promise<boolean> {
  const locked = await client.query('select id from customers where location_id = $1 and id = $2 for update', [locationId, id]);
  if (locked.rowCount === 0) return false;
  const defaults = (
    await client.query('delete from default_payment_methods where location_id = $1 and customer_id = $2 returning payment_method_id, context_name', [
      locationId,
      id,
    ])
  ).rows;
  const cards = (await client.query(`delete from payment_methods where location_id = $1 and customer_id = $2 returning ${CARD_COLUMNS}`, [locationId, id]))
    .rows as CardRow[];
  const intents = (await client.query('select id, status from payment_intents where location_id = $1 and customer_id = $2 for update', [locationId, id]))
    .rows as Array<{
    id: string;
    status: string;
  }>;
  const intentIds = intents.map((intent) => intent.id);
  let canceled: Array<Record<string, unknown>> = [];
  if (intentIds.length > 0) {
    await client.query('update payment_intents set email = null, customer_id = null, updated_at = now() where location_id = $1 and id = any($2::uuid[])', [
      locationId,
      intentIds,
    ]);
    canceled = (
      await client.query(
        `update payment_intents set status = 'CANCELED', updated_at = now()
          where location_id = $1 and id = any($2::uuid[]) and status in ('REQUIRES_PAYMENT_METHOD', 'REQUIRES_CONFIRMATION')
          returning id, amount, currency, status`,
        [locationId, intentIds],
      )
    ).rows;
  }
  const events = (await client.query('select id, type, data from events where location_id = $1 and customer_id = $2', [locationId, id])).rows as Array<{
    id: string;
    data: { object: Record<string, unknown> };
  }>;
  for (const event of events) {
    await client.query('update events set data = $3 where location_id = $1 and id = $2', [
      locationId,
      event.id,
      JSON.stringify({ ...event.data, object: { ...event.data.object, externalReferenceId: null, description: null } }),
    ]);
  }
  await client.query(`delete from idempotency_keys where location_id = $1 and response_body is not null and response_body::text like any ($2::text[])`, [
    locationId,
    [id, ...intentIds].map((named) => `%${named}%`),
  ]);
  await client.query('delete from customer_reference_duplicates where location_id = $1 and (customer_id = $2 or kept_by_customer_id = $2)', [locationId, id]);
  await client.query('delete from customers where location_id = $1 and id = $2', [locationId, id]);
  await client.query('insert into erased_customers (location_id, id) values ($1, $2)', [locationId, id]);
  const previousStatus = new Map(intents.map((intent) => [intent.id, intent.status]));
  const changes: HandWrittenEvent[] = [
    ...defaults.map((binding) => ({ type: 'default_payment_method.removed', customerId: id, data: { object: binding, previous: null } })),
    ...cards.map((card) => ({ type: 'payment_method.detached', customerId: id, data: { object: cardData(card), previous: null } })),
    ...canceled.map((intent) => ({
      type: 'payment_intent.canceled',
      customerId: id,
      data: { object: intent, previous: { status: previousStatus.get(String(intent.id)) } },
    })),
    { type: 'customer.deleted', customerId: id, data: { object: { id, externalReferenceId: null, description: null }, previous: null } },
  ];
  await insertEvents(client, locationId, changes);
  return true;
}

export function registerLifetimeRoutes(app: Express): void {
  app.patch('/v1/customers/:id/payment-methods/:paymentMethodId', express.json(), async (request, response) => {
    await verify(request);
    const expiry = (request.body as { card?: { expiry?: { month?: string; year?: string } } }).card?.expiry ?? {};
    const card = await inTransaction((client) =>
      renewCard(client, location(request), request.params.id as string, request.params.paymentMethodId as string, expiry),
    );
    if (card === undefined) return void response.status(404).json({ code: 'PAYMENT_METHOD_NOT_FOUND' });
    response.json(cardData(card));
  });

  app.delete('/v1/customers/:id', async (request, response) => {
    await verify(request);
    const erased = await inTransaction((client) => eraseCustomer(client, location(request), request.params.id as string));
    if (!erased) return void response.status(404).json({ code: 'CUSTOMER_NOT_FOUND' });
    response.status(204).end();
  });

  app.post('/v1/webhook-endpoints', express.json(), async (request, response) => {
    await verify(request);
    const body = request.body as { url: string; enabledEvents: string[]; description?: string };
    const locationId = location(request);
    const id = uuidv7();
    const context = secretContext('webhook_endpoints', locationId, id);
    // As the service makes one: in one statement, counted under the location's lock (webhook_endpoints_below), the secret sealed at rest.
    const { rows } = await pool.query(
      `insert into webhook_endpoints (location_id, id, url, description, enabled_events, status, secret)
       select $1, $2, $3, $4, $5, 'ENABLED', $6
        where webhook_endpoints_below($1, $7)
       returning id, url, description, enabled_events, status, secret, created_at`,
      [
        locationId,
        id,
        body.url,
        body.description ?? null,
        body.enabledEvents,
        secrets.seal(`whsec_${randomBytes(24).toString('base64')}`, context),
        DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_LOCATION,
      ],
    );
    const row = rows[0];
    if (row === undefined) return void response.status(409).json({ code: 'WEBHOOK_ENDPOINT_LIMIT_REACHED' });
    response.status(201).json({
      id: row.id,
      url: row.url,
      description: row.description,
      enabledEvents: row.enabled_events,
      status: row.status,
      secret: secrets.open(row.secret, context),
      createdAt: row.created_at,
    });
  });
}
