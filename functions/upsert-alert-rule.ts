import { operation } from '../shared/http/operation.ts';
import { upsertAlertRuleRoute } from '../shared/routes.ts';
import { upsertAlertRules } from '../shared/findings/triage.ts';
import type { UpsertAlertRulesBody } from '../shared/findings/inputs.ts';

export const handler = operation<{ appId: string; integrationId: string }, unknown, UpsertAlertRulesBody>(
  upsertAlertRuleRoute,
  ({ caller, params, body }) => upsertAlertRules(caller, params.appId, params.integrationId, body),
);
