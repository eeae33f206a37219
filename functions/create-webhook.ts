import { operation } from '../shared/http/operation.ts';
import { createWebhookRoute } from '../shared/routes.ts';
import { createWebhook } from '../shared/webhooks/subscriptions.ts';
import type { CreateWebhookBody } from '../shared/webhooks/inputs.ts';

export const handler = operation<{ orgId: string }, object, CreateWebhookBody>(
  createWebhookRoute,
  ({ caller, params, body }) => createWebhook(caller, params.orgId, body),
);
