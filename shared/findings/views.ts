import type { EnvironmentRecord } from '../applications/environment-repository.ts';
import type { FindingRecord, TriageRule } from './repository.ts';

// Public views of triage rules: application.AlertRule and application.AlertRuleHistory.

/** application.AlertRule of a finding's rule. */
export function toAlertRule(env: EnvironmentRecord, finding: FindingRecord, rule: TriageRule) {
  return {
    alertCondition: {
      applicationId: env.applicationId,
      environmentId: env.environmentId,
      pluginId: finding.pluginId,
      requestMethod: finding.requestMethod,
    },
    path: finding.uri,
    parameterizedPath: finding.path,
    result: rule.status,
    note: rule.note,
    userId: rule.userId,
    timestamp: rule.updatedAt,
    effectiveDate: rule.updatedAt,
    sourceScanId: finding.lastScanId,
    alertRuleHistories: toRuleHistories(rule),
  };
}

/** application.AlertRuleHistory entries of a rule, newest first. */
export const toRuleHistories = (rule: TriageRule | undefined) =>
  (rule?.history ?? [])
    .map((h) => ({
      operation: h.operation,
      oldResult: h.oldResult,
      newResult: h.newResult,
      note: h.note,
      userId: h.userId,
      timestamp: h.timestamp,
      ruleEffectiveDate: h.timestamp,
    }))
    .reverse();
