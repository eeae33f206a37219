import { operation } from '../shared/http/operation.ts';
import { updateAppTechFlagsRoute } from '../shared/routes.ts';
import { updateApplicationTechFlags } from '../shared/policies/policies.ts';

export const handler = operation(updateAppTechFlagsRoute, ({ caller, params, body }) =>
  updateApplicationTechFlags(caller, params.appId, body),
);
