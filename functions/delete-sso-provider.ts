import { operation } from '../shared/http/operation.ts';
import { deleteSsoProviderRoute } from '../shared/routes.ts';
import { deleteSsoProvider } from '../shared/sso/configuration.ts';

export const handler = operation(deleteSsoProviderRoute, ({ caller, params }) =>
  deleteSsoProvider(caller, params.orgId),
);
