import { operation } from '../shared/http/operation.ts';
import { applicationTechFlags } from '../shared/policies/policies.ts';

export const handler = operation<{ appId: string }>('getAppTechFlags', ({ caller, params }) => applicationTechFlags(caller, params.appId));
