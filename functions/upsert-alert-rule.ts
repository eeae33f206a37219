import { operation } from '../shared/http/operation.ts';
import { upsertAlertRuleRoute } from '../shared/routes.ts';
import { upsertAlertRules } from '../shared/findings/triage.ts';

export const handler = operation(upsertAlertRuleRoute, ({ caller, params, body }) =>
  upsertAlertRules(caller, params.appId, params.integrationId, body),
);
