import { operation } from '../shared/http/operation.ts';
import { testWebhookRoute } from '../shared/routes.ts';
import { testWebhook } from '../shared/delivery/manual-deliveries.ts';

export const handler = operation(testWebhookRoute, ({ caller, params, remainingMs }) =>
  testWebhook(caller, params.orgId, params.webhookId, remainingMs),
);
