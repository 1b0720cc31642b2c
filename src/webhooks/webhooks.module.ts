import { defineModule } from '../api/module';
import { WebhookDispatcher } from './webhook-dispatcher';
import { webhookEndpointsOperations } from './webhook-endpoints.operations';
import { WebhookEndpointsService } from './webhook-endpoints.service';

/** Webhook endpoints and their deliveries; the dispatcher delivers the change log's events to them. */
export const webhooksModule = defineModule({
  key: 'webhookEndpoints',
  folder: 'webhooks',
  layer: 'feature',
  reaches: [],
  tables: ['webhook_endpoints', 'webhook_deliveries', 'webhook_delivery_attempts'],
  build: ({ settings }) =>
    new WebhookEndpointsService({
      allowPrivateTargets: settings.webhookAllowPrivateTargets,
      maxEndpointsPerLocation: settings.webhookMaxEndpointsPerLocation,
    }),
  operations: webhookEndpointsOperations,
  background: (_service, { db, logger, settings }) =>
    settings.webhookDelivery === undefined ? [] : [new WebhookDispatcher(db, logger, settings.webhookDelivery)],
});
