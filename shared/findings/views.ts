import type { EnvironmentRecord } from '../applications/environment-repository.ts';
import type { FindingRecord, TriageRule } from '../results/model.ts';
import type { TicketRecord, TrackerRecord } from '../trackers/model.ts';

// Public views of triage rules: application.AlertRule and application.AlertRuleHistory.

/**
 * The finding's ticket as application.JiraConfig (GithubConfig has the same fields of ours), under the field of its
 * tracker's kind (`jira`, `jiraServer`, `github`); a ticket asked for and not made yet reads PENDING.
 */
export function ticketFields(
  ticket: TicketRecord | undefined,
  pending?: Pick<TrackerRecord, 'kind'>,
): Record<string, { id: string; key: string; keyUrl: string; issueStatus: string }> {
  if (ticket?.key)
    return {
      [ticket.kind]: {
        id: ticket.id ?? '',
        key: ticket.key,
        keyUrl: ticket.url ?? '',
        issueStatus: ticket.issueStatus ?? '',
      },
    };
  const kind = ticket?.kind ?? pending?.kind;
  if (!kind) return {};
  return { [kind]: { id: '', key: '', keyUrl: '', issueStatus: ticket?.state === 'FAILED' ? 'FAILED' : 'PENDING' } };
}

/** application.AlertRule of a finding's rule (with its ticket, or the tracker a ticket was just asked of). */
export function toAlertRule(
  env: EnvironmentRecord,
  finding: FindingRecord,
  rule: TriageRule,
  ticket?: TicketRecord,
  pending?: Pick<TrackerRecord, 'kind'>,
) {
  return {
    ...ticketFields(ticket, pending),
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
