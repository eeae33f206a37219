import { operation } from '../shared/http/operation.ts';
import { getAlertMessagesRoute } from '../shared/routes.ts';
import { getAlertMessages } from '../shared/scans/results.ts';

export const handler = operation(getAlertMessagesRoute, ({ caller, params, query }) =>
  getAlertMessages(caller, params.scanId, params.alertUriId, params.messageId, query),
);
