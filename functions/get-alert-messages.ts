import { operation } from '../shared/http/operation.ts';
import { getAlertMessagesRoute } from '../shared/routes.ts';
import { getAlertMessages } from '../shared/scans/results.ts';
import type { AlertMessageQuery } from '../shared/scans/inputs.ts';

export const handler = operation<{ scanId: string; alertUriId: string; messageId: string }, AlertMessageQuery>(
  getAlertMessagesRoute,
  ({ caller, params, query }) => getAlertMessages(caller, params.scanId, params.alertUriId, params.messageId, query),
);
