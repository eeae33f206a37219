import { operation } from '../shared/http/operation.ts';
import { toggleApplicationOASMappingRoute } from '../shared/routes.ts';
import { toggleMapping } from '../shared/hosted-assets/oas.ts';

export const handler = operation(toggleApplicationOASMappingRoute, ({ caller, params, body }) =>
  toggleMapping(caller, params.appId, body),
);
