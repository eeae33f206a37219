import { operation } from '../shared/http/operation.ts';
import { getGlobalConfigurationRoute } from '../shared/routes.ts';
import { checkedGlobalConfigurationDownload } from '../shared/scans/global-configurations.ts';

export const handler = operation(getGlobalConfigurationRoute, ({ caller, route, params, query }) =>
  checkedGlobalConfigurationDownload(caller, route.permission!, params.configName, query.redirect),
);
