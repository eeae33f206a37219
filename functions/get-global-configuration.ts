import { operation } from '../shared/http/operation.ts';
import { getGlobalConfigurationRoute } from '../shared/routes.ts';
import { globalConfigurationDownload } from '../shared/hosted-assets/global-configuration.ts';

export const handler = operation(getGlobalConfigurationRoute, ({ caller, route, params, query }) =>
  globalConfigurationDownload(caller, route.permission!, params.configName, query.redirect),
);
