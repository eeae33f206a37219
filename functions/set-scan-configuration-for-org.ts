import { operation } from '../shared/http/operation.ts';
import { setScanConfigurationForOrgRoute } from '../shared/routes.ts';
import { upsertScanConfiguration } from '../shared/scan-configurations/upsert.ts';
import type { UpsertScanConfiguration } from '../shared/scan-configurations/inputs.ts';

export const handler = operation<{ orgId: string }, unknown, UpsertScanConfiguration>(
  setScanConfigurationForOrgRoute,
  ({ caller, params, body }) => upsertScanConfiguration(caller, params.orgId, body),
);
