import { operation } from '../shared/http/operation.ts';
import { listWebhookDeliveriesRoute } from '../shared/routes.ts';
import { listWebhookDeliveries } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(listWebhookDeliveriesRoute, ({ params }) =>
  listWebhookDeliveries(params.orgId, params.webhookId),
);
