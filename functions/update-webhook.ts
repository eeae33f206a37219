import { operation } from '../shared/http/operation.ts';
import { updateWebhookRoute } from '../shared/routes.ts';
import { updateWebhook } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(updateWebhookRoute, ({ caller, params, body }) =>
  updateWebhook(caller, params.orgId, params.webhookId, body),
);
