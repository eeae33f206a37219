import { operation } from '../shared/http/operation.ts';
import { toggleAppPluginRoute } from '../shared/routes.ts';
import { toggleApplicationPlugin } from '../shared/policies/policies.ts';

export const handler = operation(toggleAppPluginRoute, ({ caller, params }) =>
  toggleApplicationPlugin(caller, params.appId, params.pluginId, params.toggle),
);
