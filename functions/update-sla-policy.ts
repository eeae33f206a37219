import { operation } from '../shared/http/operation.ts';
import { updateSlaPolicyRoute } from '../shared/routes.ts';
import { updateSlaPolicy } from '../shared/governance/policy.ts';
import type { SlaPolicyBody } from '../shared/governance/inputs.ts';

export const handler = operation<{ orgId: string }, object, SlaPolicyBody>(
  updateSlaPolicyRoute,
  ({ caller, params, body }) => updateSlaPolicy(caller, params.orgId, body),
);
