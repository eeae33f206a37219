import { operation } from '../shared/http/operation.ts';
import { updateEnvironmentSlaRoute } from '../shared/routes.ts';
import { updateEnvironmentSla } from '../shared/governance/overrides.ts';

export const handler = operation(updateEnvironmentSlaRoute, ({ caller, params, body }) =>
  updateEnvironmentSla(caller, params.appId, params.envId, body),
);
