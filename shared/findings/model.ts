import type { EnvironmentRecord } from '../applications/model.ts';
import type { FindingRecord, TriageRule } from '../results/model.ts';
import type { TicketRecord, TrackerRecord } from '../trackers/model.ts';

// The findings operations' model (docs/DATA-MODEL.md, Findings): the triage options, the report's open issues, and the
// pure views of rules and tickets. The records themselves are results/ (shared/results/model.ts). Records, types and
// pure rules only (docs/LAYOUT.md, Layers): it imports the kernel and other resources' model.ts, never a repository.

/** The environment's issues open at a moment (docs/ISSUES.md, The findings report): their tools, by issue id. */
export interface OpenIssuesAt {
  tools: Map<string, Set<string>>;
}

/** What a triage change does beyond setting the status. */
export interface TriageOptions {
  /** An explicit RISK_ACCEPTED action: when the acceptance expires (undefined: never). */
  accept?: { expiresAt: number | undefined };
  /**
   * The expiry of an acceptance (docs/GOVERNANCE.md): applies only while the rule is still RISK_ACCEPTED until
   * exactly this time (else 'stale', nothing written), and consumes the expiry entry, so it happens once.
   */
  expiring?: number;
  /** A PROMOTED finding's ticket is wanted in this tracker (docs/TRACKERS.md): its job joins the transaction. */
  promoteTo?: PromoteTo;
  now?: number;
}

/** The tracker a promotion goes to, and the caller's own title and text for the ticket. */
export interface PromoteTo {
  trackerId: string;
  summary?: string;
  description?: string;
}

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
