import { operation } from '../shared/http/operation.ts';
import { deleteEnvironmentSlaRoute } from '../shared/routes.ts';
import { deleteEnvironmentSla } from '../shared/governance/overrides.ts';

export const handler = operation(deleteEnvironmentSlaRoute, ({ caller, params }) =>
  deleteEnvironmentSla(caller, params.appId, params.envId),
);
