import { operation } from '../shared/http/operation.ts';
import { listWebhooksRoute } from '../shared/routes.ts';
import { listWebhooks } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(listWebhooksRoute, ({ params }) => listWebhooks(params.orgId));
