import { operation } from '../shared/http/operation.ts';
import { getWebhookRoute } from '../shared/routes.ts';
import { getWebhookView } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(getWebhookRoute, ({ params }) => getWebhookView(params.orgId, params.webhookId));
