import { operation } from '../shared/http/operation.ts';
import { redeliverWebhookDeliveryRoute } from '../shared/routes.ts';
import { redeliverWebhookDelivery } from '../shared/delivery/manual-deliveries.ts';

export const handler = operation(redeliverWebhookDeliveryRoute, ({ caller, params }) =>
  redeliverWebhookDelivery(caller, params.orgId, params.webhookId, params.deliveryId),
);
