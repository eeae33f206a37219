import { operation } from '../shared/http/operation.ts';
import { getSlaPolicyRoute } from '../shared/routes.ts';
import { getSlaPolicyView } from '../shared/governance/policy.ts';

export const handler = operation(getSlaPolicyRoute, ({ caller, params }) => getSlaPolicyView(caller, params.orgId));
