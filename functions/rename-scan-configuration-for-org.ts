import { operation } from '../shared/http/operation.ts';
import { renameScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { renameScanConfiguration } from '../shared/scan-configurations/configurations.ts';

export const handler = operation<{ orgId: string }, unknown, { originalName: string; newName: string }>(
  renameScanConfigurationForOrgRoute,
  ({ caller, params, body }) => renameScanConfiguration(caller, params.orgId, body),
);
