import { operation } from '../shared/http/operation.ts';
import { getIntegrationSettingsRoute } from '../shared/routes.ts';
import { getIntegrationSettingsView } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(getIntegrationSettingsRoute, ({ params }) => getIntegrationSettingsView(params.orgId));
