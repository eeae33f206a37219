// Untriaged = UNKNOWN and ADD_COMMENT findings (a comment does not triage), as the service counts them
// (docs/DATA-MODEL.md, Scans: lastScan*Untriaged).
export const UNTRIAGED = new Set(['UNKNOWN', 'ADD_COMMENT']);

export function untriagedOf(stats: { alertStatus?: string; totalCount?: number }[]): number {
  return stats.filter((s) => UNTRIAGED.has(s.alertStatus ?? 'UNKNOWN')).reduce((n, s) => n + (s.totalCount ?? 0), 0);
}

const STATUS_LABELS: Record<string, string> = {
  UNKNOWN: 'Untriaged',
  FALSE_POSITIVE: 'False positive',
  RISK_ACCEPTED: 'Risk accepted',
  PROMOTED: 'Promoted',
  ADD_COMMENT: 'Untriaged, commented',
};
export const statusLabel = (status: string | undefined) => STATUS_LABELS[status ?? 'UNKNOWN'] ?? status ?? 'Untriaged';
