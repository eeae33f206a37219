import { operation } from '../shared/http/operation.ts';
import { getApplicationSlaRoute } from '../shared/routes.ts';
import { getApplicationSla } from '../shared/governance/overrides.ts';

export const handler = operation(getApplicationSlaRoute, ({ caller, params }) =>
  getApplicationSla(caller, params.appId),
);
