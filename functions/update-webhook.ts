import { operation } from '../shared/http/operation.ts';
import { updateWebhookRoute } from '../shared/routes.ts';
import { updateWebhook } from '../shared/webhooks/subscriptions.ts';
import type { UpdateWebhookBody } from '../shared/webhooks/inputs.ts';

export const handler = operation<{ orgId: string; webhookId: string }, object, UpdateWebhookBody>(
  updateWebhookRoute,
  ({ caller, params, body }) => updateWebhook(caller, params.orgId, params.webhookId, body),
);
