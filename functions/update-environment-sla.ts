import { operation } from '../shared/http/operation.ts';
import { updateEnvironmentSlaRoute } from '../shared/routes.ts';
import { updateEnvironmentSla } from '../shared/governance/overrides.ts';
import type { SlaOverrideBody } from '../shared/governance/inputs.ts';

export const handler = operation<{ appId: string; envId: string }, object, SlaOverrideBody>(
  updateEnvironmentSlaRoute,
  ({ caller, params, body }) => updateEnvironmentSla(caller, params.appId, params.envId, body),
);
