import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SCOPE, SCOPES } from '../../src/auth/scopes';
import {
  createPaymentProfilesClient,
  fetchAccessToken,
  locationHeaders,
  type PaymentProfilesClient,
} from '../../clients/typescript/src/payment-profiles-client';
import { newLocation } from '../factories/locations';
import { startTestApp, testSecretHash, type TestApp } from '../support/test-app';

const BACKEND = { clientId: 'checkout-backend', clientSecret: 'backend-secret-for-tests' };
const BROWSER = { clientId: 'checkout-page', clientSecret: 'page-secret-for-tests' };

let t: TestApp;
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp({
    clients: [
      { clientId: BACKEND.clientId, secretHash: await testSecretHash(BACKEND.clientSecret), scopes: [...SCOPES], locations: ['*'] },
      { clientId: BROWSER.clientId, secretHash: await testSecretHash(BROWSER.clientSecret), scopes: [SCOPE.integrationRead], locations: ['*'] },
    ],
  });
  server = createServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

async function loggedIn(credentials: { clientId: string; clientSecret: string }): Promise<PaymentProfilesClient> {
  const token = await fetchAccessToken(createPaymentProfilesClient({ baseUrl }), credentials);
  return createPaymentProfilesClient({ baseUrl, accessToken: () => token });
}

describe('a whole hosted checkout through the typed client, over HTTP', () => {
  it('logs in, creates a customer, saves a card, sets a default, creates an intent, reads the cards with its session secret, confirms from the page and captures from the backend', async () => {
    const location = newLocation();
    const backend = await loggedIn(BACKEND);

    const customer = await backend.POST('/v1/customers', {
      params: { header: locationHeaders(location) },
      body: { externalReferenceId: 'user-42', description: 'pat@example.com' },
    });
    expect(customer.response.status).toBe(200);
    const customerId = customer.data?.id as string;

    const card = await backend.POST('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location), path: { id: customerId } },
      body: { type: 'CARD', card: { type: 'VISA', lastFour: '4242', expiry: { month: '12', year: '2031' } } },
    });
    expect(card.response.status).toBe(201);
    expect(card.data).toMatchObject({ cardType: 'Visa', lastFour: '4242', card: { expiry: { month: '12', year: '2031' } } });
    const paymentMethodId = card.data?.id as string;

    const setDefault = await backend.POST('/v1/customers/{id}/payment-methods/defaults', {
      params: { header: locationHeaders(location), path: { id: customerId } },
      body: { paymentMethodId, contextName: 'web-checkout' },
    });
    expect(setDefault.data).toEqual({ paymentMethodId, contextName: 'web-checkout' });

    const intent = await backend.POST('/v1/payment-intents', {
      params: { header: locationHeaders(location) },
      body: { amount: 2599, currency: 'USD', externalReferenceId: 'order-7', customerId },
    });
    expect(intent.response.status).toBe(201);
    expect(intent.data).toMatchObject({ status: 'REQUIRES_PAYMENT_METHOD', customerId, amount: 2599 });
    const sessionSecret = intent.data?.sessionSecret as string;

    // The browser side: a read-only token plus the intent's session secret.
    const page = await loggedIn(BROWSER);
    const cards = await page.GET('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: customerId } },
    });
    expect(cards.response.status).toBe(200);
    expect(cards.data?.results).toBe(1);
    expect(cards.data?.paymentMethods[0]?.id).toBe(paymentMethodId);

    const chosen = await page.GET('/v1/customers/{id}/payment-methods/defaults/{contextName}', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: customerId, contextName: 'web-checkout' } },
    });
    expect(chosen.data).toEqual({ paymentMethodId, contextName: 'web-checkout' });

    const ownIntent = await page.GET('/v1/payment-intents/{id}', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: intent.data?.id as string } },
    });
    expect(ownIntent.data?.id).toBe(intent.data?.id);

    // Without the secret, the read-only token reads nothing; its error is typed as ErrorMessage.
    const withoutSecret = await page.GET('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location), path: { id: customerId } },
    });
    expect(withoutSecret.response.status).toBe(401);
    expect(withoutSecret.error).toMatchObject({ code: 4004, messageKey: 'SESSION_SECRET_INVALID' });

    // The page pays with the default card: the intent is authorized.
    const intentId = intent.data?.id as string;
    const confirmed = await page.POST('/v1/payment-intents/{id}/confirm', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: intentId } },
      body: { paymentMethodId: chosen.data?.paymentMethodId as string },
    });
    expect(confirmed.response.status).toBe(200);
    expect(confirmed.data).toMatchObject({ status: 'REQUIRES_CAPTURE', latestPayment: { status: 'AUTHORIZED', amount: 2599, card: { lastFour: '4242' } } });

    // The backend captures it when the order is fulfilled.
    const captured = await backend.POST('/v1/payment-intents/{id}/capture', {
      params: { header: locationHeaders(location), path: { id: intentId } },
      body: { amountToCapture: 2599 },
    });
    expect(captured.data).toMatchObject({ status: 'SUCCEEDED', latestPayment: { status: 'CAPTURED', amount: 2599 } });
    const paid = await backend.GET('/v1/payment-intents', { params: { header: locationHeaders(location), query: { status: 'SUCCEEDED' } } });
    expect(paid.data?.paymentIntents.map(({ id }) => id)).toEqual([intentId]);

    // Once paid, the intent's secret stops working.
    const afterPayment = await page.GET('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: customerId } },
    });
    expect(afterPayment.response.status).toBe(401);

    // That evening, a dish sent back: the backend refunds part of it, keyed so that a retry refunds once.
    const refunded = await backend.POST('/v1/payment-intents/{id}/refunds', {
      params: { header: { ...locationHeaders(location), 'Idempotency-Key': `refund-${intentId}` }, path: { id: intentId } },
      body: { amount: 650, reason: 'REQUESTED_BY_CUSTOMER' },
    });
    expect(refunded.response.status).toBe(201);
    expect(refunded.data).toMatchObject({ paymentIntentId: intentId, amount: 650, status: 'SUCCEEDED', failureCode: null });
    const afterRefund = await backend.GET('/v1/payment-intents/{id}', { params: { header: locationHeaders(location), path: { id: intentId } } });
    expect(afterRefund.data).toMatchObject({ status: 'SUCCEEDED', amountCaptured: 2599, amountRefunded: 650, refundableAmount: 1949 });
    const refunds = await backend.GET('/v1/payment-intents/{id}/refunds', { params: { header: locationHeaders(location), path: { id: intentId } } });
    expect(refunds.data?.refunds.map(({ id }) => id)).toEqual([refunded.data?.id]);

    // Where the money lands: the capture and the refund in the payment's ledger trail; two days on the sandbox clock close
    // their business day into a batch and its payout, and the batch's file reconciles to zero.
    const header = locationHeaders(location);
    const trail = await backend.GET('/v1/payment-intents/{id}/ledger', { params: { header, path: { id: intentId } } });
    expect(trail.data?.lines.map((line) => [line.type, line.gross, line.batchId])).toEqual([
      ['CAPTURE', 2599, null],
      ['REFUND', -650, null],
    ]);
    await backend.POST('/v1/sandbox/clock/advance', { params: { header }, body: { seconds: 2 * 86_400 } });
    const closedTrail = await backend.GET('/v1/payment-intents/{id}/ledger', { params: { header, path: { id: intentId } } });
    const captureLine = closedTrail.data?.lines[0];
    const batch = await backend.GET('/v1/batches/{id}', { params: { header, path: { id: captureLine?.batchId as string } } });
    expect(batch.data).toMatchObject({ status: 'CLOSED', totals: { gross: 2599 }, payoutId: captureLine?.payoutId });
    const payout = await backend.GET('/v1/payouts/{id}', { params: { header, path: { id: batch.data?.payoutId as string } } });
    expect(payout.data).toMatchObject({ batchId: batch.data?.id, amount: batch.data?.totals.payout, currency: 'USD' });
    const file = await backend.GET('/v1/batches/{id}/lines.csv', { params: { header, path: { id: batch.data?.id as string } }, parseAs: 'text' });
    const rows = (file.data as string)
      .trimEnd()
      .split('\r\n')
      .map((row) => row.split(','));
    const net = (rows[0] as string[]).indexOf('net');
    expect(rows.at(-1)).toContain('PAYOUT');
    expect(rows.slice(1).reduce((cents, row) => cents + Math.round(Number(row[net]) * 100), 0)).toBe(0);
    expect(rows.find((row) => row.includes('CAPTURE'))).toEqual(expect.arrayContaining(['order-7', '25.99']));

    // Weeks later the guest's bank disputes part of it (the sandbox's helper does what the bank does): the backend drafts
    // its evidence from the payment, adds the signed check, submits it, and wins at the decision.
    const opened = await backend.POST('/v1/sandbox/payment-intents/{id}/disputes', {
      params: { header, path: { id: intentId } },
      body: { stage: 'CHARGEBACK', reason: 'FRAUDULENT', amount: 500 },
    });
    expect(opened.data).toMatchObject({ stage: 'CHARGEBACK', status: 'NEEDS_RESPONSE', amount: 500, fundsWithdrawnAt: expect.any(String) });
    const disputeId = opened.data?.id as string;
    const draft = await backend.GET('/v1/disputes/{id}/evidence-draft', { params: { header, path: { id: disputeId } } });
    expect(draft.data?.evidence).toMatchObject({ receiptReference: 'order-7', documentTypesNeeded: ['receipt', 'customer_signature'] });
    const submitted = await backend.POST('/v1/disputes/{id}/evidence', {
      params: { header, path: { id: disputeId } },
      body: {
        explanation: draft.data?.evidence.explanation,
        receiptReference: draft.data?.evidence.receiptReference,
        documents: [{ type: 'customer_signature', url: 'https://files.example.com/checks/order-7.pdf', sha256: 'a'.repeat(64) }],
        submit: true,
      },
    });
    expect(submitted.data).toMatchObject({ status: 'UNDER_REVIEW', evidence: { submitted: true } });
    await backend.POST('/v1/sandbox/clock/advance', { params: { header }, body: { seconds: 46 * 86_400 } });
    const disputes = await backend.GET('/v1/payment-intents/{id}/disputes', { params: { header, path: { id: intentId } } });
    expect(disputes.data?.disputes).toEqual([expect.objectContaining({ id: disputeId, status: 'WON', closedBy: 'ISSUER' })]);
    const wonTrail = await backend.GET('/v1/payment-intents/{id}/ledger', { params: { header, path: { id: intentId } } });
    expect(wonTrail.data?.lines.filter((line) => line.sourceType === 'dispute').map((line) => [line.type, line.gross])).toEqual([
      ['DISPUTE_WITHDRAWAL', -500],
      ['DISPUTE_FEE', 0],
      ['DISPUTE_REINSTATEMENT', 500],
    ]);

    // A decline is an answer, not an error: its reason is typed on the intent.
    const declinedCard = await backend.POST('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location), path: { id: customerId } },
      body: { type: 'CARD', card: { type: 'VISA', lastFour: '0002', expiry: { month: '12', year: '2031' } } },
    });
    const second = await backend.POST('/v1/payment-intents', {
      params: { header: locationHeaders(location) },
      body: { amount: 1000, currency: 'USD', externalReferenceId: 'order-8', customerId },
    });
    const declined = await backend.POST('/v1/payment-intents/{id}/confirm', {
      params: { header: locationHeaders(location), path: { id: second.data?.id as string } },
      body: { paymentMethodId: declinedCard.data?.id as string },
    });
    expect(declined.data?.status).toBe('REQUIRES_PAYMENT_METHOD');
    expect(declined.data?.lastPaymentError).toEqual({ code: 'card_declined', declineCode: 'generic_decline', message: 'The card was declined.' });
    const canceled = await backend.POST('/v1/payment-intents/{id}/cancel', {
      params: { header: locationHeaders(location), path: { id: second.data?.id as string } },
      body: { cancellationReason: 'ABANDONED' },
    });
    expect(canceled.data).toMatchObject({ status: 'CANCELED', cancellationReason: 'ABANDONED' });
  });

  it('saves a card from a profile page with a setup intent (the page confirms with its SI_ secret), then charges it off-session under the mandate it made', async () => {
    const location = newLocation();
    const backend = await loggedIn(BACKEND);
    const page = await loggedIn(BROWSER);
    const customer = await backend.POST('/v1/customers', { params: { header: locationHeaders(location) }, body: { externalReferenceId: 'app-user-9' } });
    const customerId = customer.data?.id as string;

    const setup = await backend.POST('/v1/setup-intents', {
      params: { header: { ...locationHeaders(location), 'Idempotency-Key': 'save-card-9' } },
      body: {
        customerId,
        usage: 'OFF_SESSION',
        standingInstructionType: 'UNSCHEDULED',
        consent: { acceptedAt: new Date(Date.now() - 1000).toISOString(), textVersion: 'reorder-terms-v1', channel: 'ONLINE' },
      },
    });
    expect(setup.response.status).toBe(201);
    const { id, sessionSecret } = setup.data as { id: string; sessionSecret: string };
    expect(sessionSecret.startsWith(`SI_${id}_SECRET_`)).toBe(true);

    const read = await page.GET('/v1/setup-intents/{id}', { params: { header: locationHeaders(location, sessionSecret), path: { id } } });
    expect(read.data?.status).toBe('REQUIRES_PAYMENT_METHOD');
    const saved = await page.POST('/v1/setup-intents/{id}/confirm', {
      params: { header: locationHeaders(location, sessionSecret), path: { id } },
      body: { type: 'CARD', card: { type: 'VISA', lastFour: '4242', expiry: { month: '12', year: '2031' } }, fingerprint: 'fp_user_9' },
    });
    expect(saved.data).toMatchObject({ status: 'SUCCEEDED', usage: 'OFF_SESSION', lastSetupError: null });
    const mandateId = saved.data?.mandateId as string;
    const cards = await page.GET('/v1/customers/{id}/payment-methods', {
      params: { header: locationHeaders(location, sessionSecret), path: { id: customerId } },
    });
    // The secret died with the setup's success: the page's card read is refused.
    expect(cards.response.status).toBe(401);

    const reorder = await backend.POST('/v1/payment-intents', {
      params: { header: locationHeaders(location) },
      body: { amount: 1800, currency: 'USD', externalReferenceId: 'reorder-9', customerId, captureMethod: 'AUTOMATIC', offSession: true, mandateId },
    });
    const paid = await backend.POST('/v1/payment-intents/{id}/confirm', {
      params: { header: locationHeaders(location), path: { id: reorder.data?.id as string } },
      body: {},
    });
    expect(paid.data).toMatchObject({ status: 'SUCCEEDED', paymentMethodId: saved.data?.paymentMethodId, mandateId });
  });

  it('turns a wrong client secret into an error, not a token', async () => {
    await expect(fetchAccessToken(createPaymentProfilesClient({ baseUrl }), { ...BACKEND, clientSecret: 'wrong' })).rejects.toThrow(
      'Login failed with HTTP 401',
    );
  });
});
