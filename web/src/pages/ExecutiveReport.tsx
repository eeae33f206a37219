import { useEffect, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { QueryView } from '../components/states';
import { OverviewLists } from '../components/OverviewLists';
import { TrendCharts } from '../components/TrendCharts';
import { SeverityBadge, text } from '../components/ui';
import { useUrlState } from '../components/url-state';
import { useUser } from '../user';
import { PERIODS } from './Overview';

// The printable executive report (docs/GOVERNANCE.md, The overview): an organization's or an application's trends
// over 30, 90 or 365 days or from one date to another (within the last 365 days, UTC), with the overview's lists.
// styles.css lays it out for paper (@media print); the browser's print dialog saves it as PDF.

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
const dayNumber = (iso: string) => Math.floor(Date.parse(`${iso}T00:00:00Z`) / DAY);

/** The period asked for: the days to fetch (ending today) and the span to show; or why it cannot be shown. */
function period(days: string, from: string, to: string) {
  if (!from && !to) {
    const n = (PERIODS as readonly string[]).includes(days) ? days : '30';
    return { fetch: Number(n), from: '', to: '', title: `the last ${n} days` };
  }
  const [first, last, now] = [dayNumber(from), dayNumber(to || today()), dayNumber(today())];
  if (!Number.isFinite(first) || !Number.isFinite(last)) return { error: 'From and to must be dates.' };
  if (first > last) return { error: 'From must be on or before to.' };
  if (last > now) return { error: 'To cannot be after today.' };
  if (now - first + 1 > 365) return { error: 'From must be within the last 365 days.' };
  const toDate = to || today();
  return { fetch: now - first + 1, from, to: toDate, title: `${from} to ${toDate}` };
}

export default function ExecutiveReportPage() {
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const appId = url.get('app');
  const chosen = period(url.get('days'), url.get('from'), url.get('to'));
  const user = useUser();
  const orgName =
    user.data?.user?.external?.organizations?.find((o) => o.organization?.id === orgId)?.organization?.name ?? orgId;
  const apps = useQuery({
    queryKey: ['report-apps', orgId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/org/{orgId}/apps', {
          params: {
            path: { orgId },
            query: { pageSize: '1000', sortField: 'applicationName', applicationTypes: 'STANDARD,CLOUD' },
          },
        }),
      ),
  });
  const appName = apps.data?.applications?.find((a) => a.applicationId === appId)?.name ?? appId;
  const days = 'fetch' in chosen ? String(chosen.fetch) : '30';
  const trends = useQuery({
    queryKey: ['report-trends', orgId, appId, days],
    queryFn: () =>
      appId
        ? unwrap(
            api.GET('/api/v1/org/{orgId}/app/{appId}/trends', {
              params: { path: { orgId, appId }, query: { days } },
            }),
          )
        : unwrap(api.GET('/api/v1/org/{orgId}/trends', { params: { path: { orgId }, query: { days } } })),
    enabled: !('error' in chosen),
  });
  const overview = useQuery({
    queryKey: ['org-overview', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/overview', { params: { path: { orgId } } })),
    enabled: !appId,
  });
  const appFindings = useQuery({
    queryKey: ['report-app-findings', orgId, appId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/reports/org/{orgId}/findings', {
          params: { path: { orgId }, query: { appIds: appId, pageSize: '1000' } },
        }),
      ) as Promise<Schemas['reports.CurrentFindingsResponse']>,
    enabled: !!appId,
  });
  const subject = appId ? `application ${appName}` : `organization ${orgName}`;
  useEffect(() => {
    document.title = `Security report: ${subject} · hawk-api`;
  }, [subject]);

  const choose = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const span = text(data, 'span');
    url.set({
      app: text(data, 'app'),
      days: span === 'custom' ? '' : span,
      from: span === 'custom' ? text(data, 'from') : '',
      to: span === 'custom' ? text(data, 'to') : '',
    });
  };
  const span = url.get('from') ? 'custom' : 'fetch' in chosen ? String(chosen.fetch) : '30';

  return (
    <article className="report">
      <form className="no-print toolbar" onSubmit={choose}>
        <label htmlFor="report-app">Report on</label>
        <select id="report-app" name="app" defaultValue={appId} key={`${appId}-${apps.data ? 'loaded' : 'loading'}`}>
          <option value="">the whole organization</option>
          {(apps.data?.applications ?? []).map((a) => (
            <option key={a.applicationId} value={a.applicationId}>
              application {a.name}
            </option>
          ))}
        </select>
        <label htmlFor="report-span">Period</label>
        <select id="report-span" name="span" defaultValue={span} key={span}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              last {p} days
            </option>
          ))}
          <option value="custom">from and to</option>
        </select>
        <label>
          From <input type="date" name="from" defaultValue={url.get('from')} />
        </label>
        <label>
          To <input type="date" name="to" defaultValue={url.get('to')} />
        </label>
        <button type="submit">Show</button>
        <button type="button" onClick={() => window.print()}>
          Print or save as PDF
        </button>
      </form>
      <h1>Security report: {subject}</h1>
      {'error' in chosen ? (
        <p role="alert">{chosen.error}</p>
      ) : (
        <>
          <p>
            Period: {chosen.title} (UTC). Generated {new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.
          </p>
          <section className="sheet" aria-labelledby="report-trends">
            <h2 id="report-trends">Findings over {chosen.title}</h2>
            <QueryView query={trends} what="the trends">
              {(t) => (
                <TrendCharts
                  days={(t.days ?? []).filter(
                    (d) => (!chosen.from || d.date! >= chosen.from) && (!chosen.to || d.date! <= chosen.to),
                  )}
                  scope={chosen.title}
                />
              )}
            </QueryView>
          </section>
          <section className="sheet" aria-label="Findings now">
            {appId ? (
              <QueryView query={appFindings} what="the application's findings">
                {(report) => <AppOverdue rows={report.findings ?? []} />}
              </QueryView>
            ) : (
              <QueryView query={overview} what="the overview">
                {(o) => <OverviewLists orgId={orgId} overview={o} />}
              </QueryView>
            )}
          </section>
        </>
      )}
    </article>
  );
}

/** The application's overdue findings (its current findings report), most overdue first. */
function AppOverdue({ rows }: { rows: Schemas['reports.CurrentFindingRow'][] }) {
  // A finding has a row per URI: one row each, by environment and hash.
  const byFinding = new Map(rows.filter((r) => r.overdue).map((r) => [`${r.environmentName}#${r.findingHash}`, r]));
  const late = [...byFinding.values()].sort((a, b) => (a.daysLeft ?? 0) - (b.daysLeft ?? 0));
  return (
    <>
      <h2>Overdue findings</h2>
      {late.length === 0 ? (
        <p>No overdue findings{rows.length >= 1000 ? ' in the first 1,000 rows of its findings report' : ''}.</p>
      ) : (
        <table>
          <caption>
            {late.length} overdue findings, most overdue first
            {rows.length >= 1000 ? ' (of the first 1,000 rows of its findings report)' : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Finding</th>
              <th scope="col">Severity</th>
              <th scope="col">Environment</th>
              <th scope="col">Due</th>
              <th scope="col">Days late</th>
            </tr>
          </thead>
          <tbody>
            {late.slice(0, 50).map((r) => (
              <tr key={`${r.environmentName}#${r.findingHash}`}>
                <th scope="row" className="wrap">
                  {r.findingPluginName}: {r.findingUrl}
                </th>
                <td>
                  <SeverityBadge severity={r.findingRisk ?? ''} />
                </td>
                <td>{r.environmentName}</td>
                <td>{r.dueDate?.slice(0, 10)}</td>
                <td>{-(r.daysLeft ?? 0)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
