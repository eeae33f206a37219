import { operation } from '../shared/http/operation.ts';
import { validateScanConfigurationRoute } from '../shared/routes.ts';
import { validateScanConfigurationText } from '../shared/scan-configurations/validation.ts';

export const handler = operation(validateScanConfigurationRoute, async ({ body }) =>
  validateScanConfigurationText(body.conf, body.name),
);
