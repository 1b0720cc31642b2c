import { Router } from 'express';
import { requireReadWithSessionSecret, requireScope, type SessionSecretCheck } from '../auth/authorize';
import { SCOPE } from '../auth/scopes';
import type { IdempotentCreates } from '../idempotency/idempotent-creates';
import { idempotentRoute } from '../idempotency/idempotent-route';
import { jsonBody } from '../platform/http/json-body';
import { locationOf } from '../platform/http/request-context';
import { parseInput } from '../platform/validation/parse-input';
import { createPaymentIntentRequestSchema, paymentIntentParamsSchema, toPaymentIntent } from './payment-intents.schemas';
import type { PaymentIntentsService } from './payment-intents.service';

export function paymentIntentsRouter(
  intents: PaymentIntentsService,
  creates: IdempotentCreates,
  currencies: readonly string[],
): Router {
  const router = Router();
  const serverWrite = requireScope(SCOPE.serverWrite);
  const createSchema = createPaymentIntentRequestSchema(currencies);

  // The browser side may read its own intent with the intent's session secret.
  const ownIntentSecret: SessionSecretCheck = async (request, secret) => {
    const intent = await intents.liveIntentOfSessionSecret(locationOf(request), secret);
    return intent !== undefined && intent.id === String(request.params.id).toLowerCase();
  };

  // Not in the spec: the hosted-checkout backend creates the intent before checkout.
  router.post(
    '/payment-intents',
    serverWrite,
    jsonBody({ anyContentType: false }),
    idempotentRoute(creates, async (request) => {
      const input = parseInput(createSchema, request.body);
      return { status: 201, body: toPaymentIntent(await intents.create(locationOf(request), input)) };
    }),
  );

  router.get('/payment-intents/:id', requireReadWithSessionSecret(SCOPE.serverWrite, ownIntentSecret), async (request, response) => {
    const { id } = parseInput(paymentIntentParamsSchema, request.params);
    response.status(200).json(toPaymentIntent(await intents.get(locationOf(request), id)));
  });

  router.post('/payment-intents/:id/cancel', serverWrite, async (request, response) => {
    const { id } = parseInput(paymentIntentParamsSchema, request.params);
    response.status(200).json(toPaymentIntent(await intents.cancel(locationOf(request), id)));
  });

  return router;
}
