import { operation } from '../shared/http/operation.ts';
import { getApplicationMappedOASRoute } from '../shared/routes.ts';
import { applicationMapping } from '../shared/hosted-assets/oas.ts';

export const handler = operation(getApplicationMappedOASRoute, ({ caller, params }) =>
  applicationMapping(caller, params.appId),
);
