import { operation } from '../shared/http/operation.ts';
import { updateSsoProviderRoute } from '../shared/routes.ts';
import { updateSsoProvider } from '../shared/sso/configuration.ts';
import type { SsoProviderBody } from '../shared/sso/inputs.ts';

export const handler = operation<{ orgId: string }, object, SsoProviderBody>(
  updateSsoProviderRoute,
  ({ caller, params, body }) => updateSsoProvider(caller, params.orgId, body),
);
