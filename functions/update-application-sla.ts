import { operation } from '../shared/http/operation.ts';
import { updateApplicationSlaRoute } from '../shared/routes.ts';
import { updateApplicationSla } from '../shared/governance/overrides.ts';

export const handler = operation(updateApplicationSlaRoute, ({ caller, params, body }) =>
  updateApplicationSla(caller, params.appId, body),
);
