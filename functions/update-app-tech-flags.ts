import { operation } from '../shared/http/operation.ts';
import { updateApplicationTechFlags } from '../shared/policies/policies.ts';

export const handler = operation<{ appId: string }, unknown, Record<string, boolean>>('updateAppTechFlags', ({ caller, params, body }) =>
  updateApplicationTechFlags(caller, params.appId, body),
);
