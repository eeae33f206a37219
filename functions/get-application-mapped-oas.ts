import { operation } from '../shared/http/operation.ts';
import { applicationMapping } from '../shared/hosted-assets/oas.ts';

export const handler = operation<{ appId: string }>('getApplicationMappedOAS', ({ caller, params }) => applicationMapping(caller, params.appId));
