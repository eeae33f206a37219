import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import type { Column } from './DataTable';
import { SeverityBadge } from './ui';

type Row = Schemas['reports.CurrentFindingRow'];

/**
 * The columns the findings report and the triage inbox share, over a report row (`of` finds it in the table's row):
 * the finding linked to its alert, its risk, its application and environment linked to their pages, and its due date.
 */
export function findingColumns<T>(orgId: string, of: (row: T) => Row) {
  const column = (header: string, cell: (f: Row) => React.ReactNode, className?: string): Column<T> => ({
    header,
    className,
    cell: (row) => cell(of(row)),
  });
  return {
    finding: column(
      'Finding',
      (f) => (
        <Link to={`/org/${orgId}/scan/${f.scanId}/alert/${encodeURIComponent(f.findingPluginId!)}`}>
          {f.findingPluginName}
        </Link>
      ),
      'wrap',
    ),
    risk: column('Risk', (f) => (f.findingRisk ? <SeverityBadge severity={f.findingRisk} /> : '—')),
    application: column('Application', (f) => (
      <Link to={`/org/${orgId}/app/${f.applicationId}`}>{f.applicationName}</Link>
    )),
    environment: column('Environment', (f) => (
      <Link to={`/org/${orgId}/app/${f.applicationId}/env/${f.environmentId}`}>{f.environmentName}</Link>
    )),
    due: column('Due', dueText),
  };
}

/** The SLA column (docs/GOVERNANCE.md): the due date and days left, or until when a risk is accepted. */
function dueText(f: Row) {
  if (f.riskAcceptedUntil) return `accepted until ${f.riskAcceptedUntil.slice(0, 10)}`;
  if (!f.dueDate) return '—';
  const days = f.daysLeft ?? 0;
  const left = f.overdue ? `${-days} days late` : `${days} days left`;
  return (
    <span className={f.overdue ? 'error' : undefined}>
      {f.dueDate.slice(0, 10)} ({left})
    </span>
  );
}
