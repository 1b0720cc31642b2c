import { Router } from 'express';
import { requireReadWithSessionSecret, requireScope, type SessionSecretCheck } from '../auth/authorize';
import { SCOPE } from '../auth/scopes';
import type { IdempotentCreates } from '../idempotency/idempotent-creates';
import { idempotentRoute } from '../idempotency/idempotent-route';
import { customerIdParamsSchema } from '../customers/customers.schemas';
import { jsonBody } from '../platform/http/json-body';
import { locationOf } from '../platform/http/request-context';
import { parseInput } from '../platform/validation/parse-input';
import type { PaymentMethodsService } from './payment-methods.service';
import {
  createPaymentMethodRequestSchema,
  defaultPaymentMethodParamsSchema,
  paymentMethodParamsSchema,
  setDefaultPaymentMethodRequestSchema,
  toPaymentMethodData,
} from './payment-methods.schemas';

export function paymentMethodsRouter(
  paymentMethods: PaymentMethodsService,
  creates: IdempotentCreates,
  checkSessionSecret?: SessionSecretCheck,
): Router {
  const router = Router();
  const serverWrite = requireScope(SCOPE.serverWrite);
  const customerRead = requireReadWithSessionSecret(SCOPE.customersRead, checkSessionSecret);

  router.get('/customers/:id/payment-methods', customerRead, async (request, response) => {
    const { id } = parseInput(customerIdParamsSchema, request.params);
    const cards = await paymentMethods.list(locationOf(request), id);
    response.status(200).json({ results: cards.length, paymentMethods: cards.map(toPaymentMethodData) });
  });

  // Not in the spec: how the card vault hands a saved card's metadata over.
  router.post(
    '/customers/:id/payment-methods',
    serverWrite,
    jsonBody({ anyContentType: false }),
    idempotentRoute(creates, async (request) => {
      const { id } = parseInput(customerIdParamsSchema, request.params);
      const input = parseInput(createPaymentMethodRequestSchema, request.body);
      const { paymentMethod, created } = await paymentMethods.save(locationOf(request), id, input);
      return { status: created ? 201 : 200, body: toPaymentMethodData(paymentMethod) };
    }),
  );

  router.delete('/customers/:id/payment-methods/:paymentMethodId', serverWrite, async (request, response) => {
    const { id, paymentMethodId } = parseInput(paymentMethodParamsSchema, request.params);
    await paymentMethods.remove(locationOf(request), id, paymentMethodId);
    response.status(204).end();
  });

  router.post(
    '/customers/:id/payment-methods/defaults',
    serverWrite,
    jsonBody({ anyContentType: false }),
    idempotentRoute(creates, async (request) => {
      const { id } = parseInput(customerIdParamsSchema, request.params);
      const input = parseInput(setDefaultPaymentMethodRequestSchema, request.body);
      return { status: 200, body: await paymentMethods.setDefault(locationOf(request), id, input) };
    }),
  );

  router.get('/customers/:id/payment-methods/defaults/:contextName', customerRead, async (request, response) => {
    const { id, contextName } = parseInput(defaultPaymentMethodParamsSchema, request.params);
    response.status(200).json(await paymentMethods.getDefault(locationOf(request), id, contextName));
  });

  router.delete('/customers/:id/payment-methods/defaults/:contextName', serverWrite, async (request, response) => {
    const { id, contextName } = parseInput(defaultPaymentMethodParamsSchema, request.params);
    response.status(200).json(await paymentMethods.removeDefault(locationOf(request), id, contextName));
  });

  return router;
}
