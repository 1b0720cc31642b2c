import { Router } from 'express';
import { requireScope } from '../auth/authorize';
import type { IdempotentCreates } from '../idempotency/idempotent-creates';
import { idempotentRoute } from '../idempotency/idempotent-route';
import { SCOPE } from '../auth/scopes';
import { jsonBody } from '../platform/http/json-body';
import { locationOf } from '../platform/http/request-context';
import { parseInput } from '../platform/validation/parse-input';
import type { CustomersService } from './customers.service';
import {
  createCustomerRequestSchema,
  customerIdParamsSchema,
  findCustomersQuerySchema,
  toCustomerResponse,
} from './customers.schemas';

export function customersRouter(customers: CustomersService, creates: IdempotentCreates): Router {
  const router = Router();

  // The spec declares this body with a wildcard media type: any Content-Type is
  // read as JSON, and no body at all means an empty customer.
  router.post(
    '/customers',
    requireScope(SCOPE.customersWrite),
    jsonBody({ anyContentType: true }),
    idempotentRoute(creates, async (request) => {
      const input = parseInput(createCustomerRequestSchema, request.body ?? {});
      return { status: 200, body: toCustomerResponse(await customers.create(locationOf(request), input)) };
    }),
  );

  router.get('/customers', requireScope(SCOPE.customersRead), async (request, response) => {
    const { externalReferenceId } = parseInput(findCustomersQuerySchema, request.query);
    const found = await customers.findByExternalReference(locationOf(request), externalReferenceId);
    response.status(200).json({ results: found.length, customers: found.map(toCustomerResponse) });
  });

  router.get('/customers/:id', requireScope(SCOPE.customersRead), async (request, response) => {
    const { id } = parseInput(customerIdParamsSchema, request.params);
    response.status(200).json(toCustomerResponse(await customers.get(locationOf(request), id)));
  });

  return router;
}
