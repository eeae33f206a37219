import { operation } from '../shared/http/operation.ts';
import { validateScanConfigurationText } from '../shared/scan-configurations/validation.ts';

export const handler = operation<{ orgId: string }, unknown, { conf: string; name?: string }>('validateScanConfiguration', async ({ body }) =>
  validateScanConfigurationText(body.conf, body.name),
);
