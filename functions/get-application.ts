import { operation } from '../shared/http/operation.ts';
import { readApplication } from '../shared/applications/applications.ts';

export const handler = operation<{ appId: string }>('getApplication', ({ caller, params }) => readApplication(caller, params.appId));
