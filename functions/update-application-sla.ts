import { operation } from '../shared/http/operation.ts';
import { updateApplicationSlaRoute } from '../shared/routes.ts';
import { updateApplicationSla } from '../shared/governance/overrides.ts';
import type { SlaOverrideBody } from '../shared/governance/inputs.ts';

export const handler = operation<{ appId: string }, object, SlaOverrideBody>(
  updateApplicationSlaRoute,
  ({ caller, params, body }) => updateApplicationSla(caller, params.appId, body),
);
