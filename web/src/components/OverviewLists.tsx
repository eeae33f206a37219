import { Link } from 'react-router';
import type { Schemas } from '../api/client';
import { SeverityBadge } from './ui';

// getOrganizationOverview's three lists (docs/GOVERNANCE.md, The overview) as tables: the overview page and the
// organization's printable report.

type Overview = Schemas['hawk.OrganizationOverview'];
const date = (iso: string | undefined) => (iso ? iso.slice(0, 10) : 'never');

export function OverviewLists({ orgId, overview }: { orgId: string; overview: Overview }) {
  const overdue = overview.overdue;
  const gaps = overview.coverageGaps;
  const apps = overview.riskiestApplications ?? [];
  const base = `/org/${orgId}`;
  return (
    <>
      <section aria-labelledby="overdue-heading">
        <h2 id="overdue-heading">Most overdue findings</h2>
        <p>
          {overdue?.overdueCount ?? 0} overdue (High {overdue?.overdueBySeverity?.High ?? 0}, Medium{' '}
          {overdue?.overdueBySeverity?.Medium ?? 0}, Low {overdue?.overdueBySeverity?.Low ?? 0}) in the{' '}
          {overdue?.environmentsExamined ?? 0} environments with the most untriaged findings.
        </p>
        {(overdue?.findings ?? []).length === 0 ? (
          <p>No overdue findings there.</p>
        ) : (
          <table>
            <caption>Most overdue findings, earliest due date first</caption>
            <thead>
              <tr>
                <th scope="col">Finding</th>
                <th scope="col">Severity</th>
                <th scope="col">Application</th>
                <th scope="col">Environment</th>
                <th scope="col">Due</th>
                <th scope="col">Days late</th>
              </tr>
            </thead>
            <tbody>
              {overdue!.findings!.map((f) => (
                <tr key={`${f.environmentId}-${f.findingHash}`}>
                  <th scope="row" className="wrap">
                    <Link to={`${base}/scan/${f.scanId}/alert/${f.pluginId}`}>
                      {f.requestMethod} {f.url}
                    </Link>
                  </th>
                  <td>
                    <SeverityBadge severity={f.severity ?? ''} />
                  </td>
                  <td>
                    <Link to={`${base}/app/${f.applicationId}`}>{f.applicationName}</Link>
                  </td>
                  <td>{f.environmentName}</td>
                  <td>{date(f.dueDate)}</td>
                  <td>{-(f.daysLeft ?? 0)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="risky-heading">
        <h2 id="risky-heading">Riskiest applications</h2>
        {apps.length === 0 ? (
          <p>No application has untriaged findings.</p>
        ) : (
          <table>
            <caption>
              Applications with the most open findings, counted as issues: each weakness once (its weakness, method,
              path and parameter, whatever its tools and URIs), in the highest severity it is open in
            </caption>
            <thead>
              <tr>
                <th scope="col">Application</th>
                <th scope="col">High</th>
                <th scope="col">Medium</th>
                <th scope="col">Low</th>
                <th scope="col">Total</th>
                <th scope="col">Last scanned</th>
              </tr>
            </thead>
            <tbody>
              {apps.map((a) => (
                <tr key={a.applicationId}>
                  <th scope="row">
                    <Link to={`${base}/app/${a.applicationId}`}>{a.name}</Link>
                  </th>
                  <td>{a.openHigh ?? 0}</td>
                  <td>{a.openMedium ?? 0}</td>
                  <td>{a.openLow ?? 0}</td>
                  <td>{a.openTotal ?? 0}</td>
                  <td>{date(a.lastScannedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section aria-labelledby="gaps-heading">
        <h2 id="gaps-heading">Coverage gaps</h2>
        <p>
          {gaps?.notScannedIn7Days ?? 0}
          {gaps?.complete ? '' : ' or more'} environments not scanned within 7 days, {gaps?.notScannedIn30Days ?? 0}
          {gaps?.complete ? '' : ' or more'} not within 30 days, {gaps?.neverScanned ?? 0} never scanned.
        </p>
        {(gaps?.environments ?? []).length > 0 && (
          <table>
            <caption>Environments not scanned within 7 days, never scanned first</caption>
            <thead>
              <tr>
                <th scope="col">Environment</th>
                <th scope="col">Application</th>
                <th scope="col">Last scanned</th>
              </tr>
            </thead>
            <tbody>
              {gaps!.environments!.map((e) => (
                <tr key={e.environmentId}>
                  <th scope="row">
                    <Link to={`${base}/app/${e.applicationId}/env/${e.environmentId}`}>{e.environmentName}</Link>
                  </th>
                  <td>{e.applicationName}</td>
                  <td>{date(e.lastScannedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
