import { operation } from '../shared/http/operation.ts';
import { updateIntegrationSettingsRoute } from '../shared/routes.ts';
import { updateIntegrationSettings } from '../shared/webhooks/subscriptions.ts';
import type { IntegrationSettingsBody } from '../shared/webhooks/inputs.ts';

export const handler = operation<{ orgId: string }, object, IntegrationSettingsBody>(
  updateIntegrationSettingsRoute,
  ({ caller, params, body }) => updateIntegrationSettings(caller, params.orgId, body),
);
