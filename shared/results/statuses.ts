import type { Severity } from '../input/severities.ts';

// Triage statuses of findings (the public enum of ApplicationAlertUri.status and AlertRule.result).

export const TRIAGE_STATUSES = ['UNKNOWN', 'FALSE_POSITIVE', 'RISK_ACCEPTED', 'PROMOTED', 'ADD_COMMENT'] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];

/** A comment leaves a finding untriaged: the untriaged figures count UNKNOWN and ADD_COMMENT findings. */
export const isUntriaged = (status: TriageStatus) => status === 'UNKNOWN' || status === 'ADD_COMMENT';

/** The findings report's status (reports.CurrentFindingRow.status): NEW, FALSE_POSITIVE, RISK_ACCEPTED, ASSIGNED. */
export function reportStatus(status: TriageStatus): 'NEW' | 'FALSE_POSITIVE' | 'RISK_ACCEPTED' | 'ASSIGNED' {
  if (status === 'FALSE_POSITIVE' || status === 'RISK_ACCEPTED') return status;
  return status === 'PROMOTED' ? 'ASSIGNED' : 'NEW';
}

export type CountsBySeverity = Record<Severity, number>;

export type StatusCounts = Record<TriageStatus, number>;

/** Findings by triage status and severity, and by plugin and triage status (ScanStats, frozen with them). */
export interface TriageStats {
  byStatus: Record<TriageStatus, Record<Severity, number>>;
  byPluginStatus: Record<string, StatusCounts>;
}
