import { operation } from '../shared/http/operation.ts';
import { deleteApplication } from '../shared/applications/applications.ts';

export const handler = operation<{ appId: string }>('deleteApplication', ({ caller, params }) => deleteApplication(caller, params.appId));
