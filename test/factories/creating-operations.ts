import { randomUUID } from 'node:crypto';
import type { TestApp } from '../support/test-app';
import { paidIntent } from './checkout';
import { cardInput, createCustomer, saveCard } from './customers';
import { consentInput, createMandate } from './mandates';

export interface CreatingOperation {
  /** The path template, as the OpenAPI document names it. */
  template: string;
  /** The table its record lands in. */
  table: string;
  /** A path to post to at `location` (making what it needs) and a valid body with every field set. */
  prepare(location: string): Promise<{ path: string; body: Record<string, unknown> }>;
  /** Another valid request for the same path: what the same Idempotency-Key must not be reused for. */
  another(body: Record<string, unknown>): Record<string, unknown>;
}

const withReference = (body: Record<string, unknown>) => ({ ...body, externalReferenceId: 'something-else' });

/** The creating POSTs. `app` is read when a test runs, after beforeAll has started it. */
export function creatingOperations(app: () => TestApp): CreatingOperation[] {
  return [
    {
      template: '/v1/customers',
      table: 'customers',
      prepare: async () => ({ path: '/v1/customers', body: { externalReferenceId: 'ext', description: 'desc' } }),
      another: withReference,
    },
    {
      template: '/v1/customers/{id}/payment-methods',
      table: 'payment_methods',
      prepare: async (location) => ({
        path: `/v1/customers/${(await createCustomer(app(), location)).id}/payment-methods`,
        body: cardInput({ fingerprint: `fp-${randomUUID()}` }),
      }),
      another: (body) => ({ ...body, card: { ...(body.card as object), lastFour: '1881' } }),
    },
    {
      template: '/v1/customers/{id}/payment-methods/defaults',
      table: 'default_payment_methods',
      prepare: async (location) => {
        const customer = await createCustomer(app(), location);
        const card = await saveCard(app(), location, customer.id);
        return { path: `/v1/customers/${customer.id}/payment-methods/defaults`, body: { paymentMethodId: card.id, contextName: 'web' } };
      },
      another: (body) => ({ ...body, contextName: 'another-context' }),
    },
    {
      template: '/v1/payment-intents',
      table: 'payment_intents',
      prepare: async (location) => {
        const customer = await createCustomer(app(), location);
        const card = await saveCard(app(), location, customer.id);
        const mandate = await createMandate(app(), location, customer.id, card.id);
        return {
          path: '/v1/payment-intents',
          body: {
            amount: 1250,
            currency: 'USD',
            externalReferenceId: 'order',
            customerId: customer.id,
            captureMethod: 'MANUAL',
            email: 'ada@example.com',
            amountDetails: { tip: 100 },
            paymentMethodConfigurationId: randomUUID(),
            standingInstructionType: 'RECURRING',
            offSession: true,
            mandateId: mandate.id,
            contextName: 'gold-plan',
          },
        };
      },
      another: withReference,
    },
    {
      template: '/v1/customers/{id}/mandates',
      table: 'mandates',
      prepare: async (location) => {
        const customer = await createCustomer(app(), location);
        const card = await saveCard(app(), location, customer.id);
        return {
          path: `/v1/customers/${customer.id}/mandates`,
          body: { paymentMethodId: card.id, standingInstructionType: 'RECURRING', contextName: 'gold-plan', maxAmount: 2500, consent: consentInput() },
        };
      },
      another: (body) => ({ ...body, maxAmount: 3000 }),
    },
    {
      template: '/v1/payment-intents/{id}/refunds',
      table: 'refunds',
      prepare: async (location) => ({
        path: `/v1/payment-intents/${(await paidIntent(app(), location)).intent.id}/refunds`,
        body: { amount: 300, reason: 'REQUESTED_BY_CUSTOMER' },
      }),
      another: (body) => ({ ...body, amount: 200 }),
    },
    {
      template: '/v1/webhook-endpoints',
      table: 'webhook_endpoints',
      prepare: async () => ({
        path: '/v1/webhook-endpoints',
        body: {
          url: 'https://hooks.example.com/payment-profiles',
          enabledEvents: ['customer.created', 'payment_intent.succeeded'],
          description: 'Order service',
        },
      }),
      another: (body) => ({ ...body, description: 'Another service' }),
    },
  ];
}
