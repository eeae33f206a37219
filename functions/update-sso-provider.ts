import { operation } from '../shared/http/operation.ts';
import { updateSsoProviderRoute } from '../shared/routes.ts';
import { updateSsoProvider } from '../shared/sso/configuration.ts';

export const handler = operation(updateSsoProviderRoute, ({ caller, params, body }) =>
  updateSsoProvider(caller, params.orgId, body),
);
