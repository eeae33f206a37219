import { operation } from '../shared/http/operation.ts';
import { createWebhookRoute } from '../shared/routes.ts';
import { createWebhook } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(createWebhookRoute, ({ caller, params, body }) =>
  createWebhook(caller, params.orgId, body),
);
