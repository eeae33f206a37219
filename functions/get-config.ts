import { operation } from '../shared/http/operation.ts';
import { getConfigRoute } from '../shared/routes.ts';
import { getScanConfig } from '../shared/scans/config-reads.ts';

export const handler = operation(getConfigRoute, ({ caller, params }) =>
  getScanConfig(caller, params.appId, params.configHash),
);
