import { operation } from '../shared/http/operation.ts';
import { toggleApplicationPlugin } from '../shared/policies/policies.ts';

export const handler = operation<{ appId: string; pluginId: string; toggle: 'enabled' | 'disabled' }>('toggleAppPlugin', ({ caller, params }) =>
  toggleApplicationPlugin(caller, params.appId, params.pluginId, params.toggle),
);
