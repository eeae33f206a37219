import { operation } from '../shared/http/operation.ts';
import { updateSlaPolicyRoute } from '../shared/routes.ts';
import { updateSlaPolicy } from '../shared/governance/policy.ts';

export const handler = operation(updateSlaPolicyRoute, ({ caller, params, body }) =>
  updateSlaPolicy(caller, params.orgId, body),
);
