import { operation } from '../shared/http/operation.ts';
import { updateIntegrationSettingsRoute } from '../shared/routes.ts';
import { updateIntegrationSettings } from '../shared/webhooks/subscriptions.ts';

export const handler = operation(updateIntegrationSettingsRoute, ({ caller, params, body }) =>
  updateIntegrationSettings(caller, params.orgId, body),
);
