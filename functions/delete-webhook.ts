import { operation } from '../shared/http/operation.ts';
import { deleteWebhookRoute } from '../shared/routes.ts';
import { deleteWebhook } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(deleteWebhookRoute, ({ caller, params }) =>
  deleteWebhook(caller, params.orgId, params.webhookId),
);
