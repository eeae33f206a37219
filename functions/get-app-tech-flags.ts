import { operation } from '../shared/http/operation.ts';
import { getAppTechFlagsRoute } from '../shared/routes.ts';
import { applicationTechFlags } from '../shared/policies/policies.ts';

export const handler = operation(getAppTechFlagsRoute, ({ caller, params }) =>
  applicationTechFlags(caller, params.appId),
);
