import { operation } from '../shared/http/operation.ts';
import { verifyScanTargetRoute } from '../shared/routes.ts';
import { verifyScanTarget } from '../shared/perch/commands.ts';

export const handler = operation(verifyScanTargetRoute, ({ caller, params }) => verifyScanTarget(caller, params.appId));
