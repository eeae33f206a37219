import { Link, useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ALL_SEVERITIES, SeverityBadge, formatTime, useTitle } from '../components/ui';
import { ApplicationFilter } from '../components/ApplicationFilter';
import { DataTable, totalPaging } from '../components/DataTable';
import { dayBound, useUrlState } from '../components/url-state';

export default function ScansPage() {
  useTitle('Scans');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const query = {
    appIds: url.get('app') || undefined,
    envs: url.get('env') || undefined,
    start: dayBound(url.get('from'), false),
    end: dayBound(url.get('to'), true),
    pageSize: '25',
    pageToken: String(url.page),

    applicationTypes: 'STANDARD,CLOUD', // hosted-scan (CLOUD) applications too
  };
  const scans = useQuery({
    queryKey: ['scans', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v1/scan/{orgId}', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  const filtered = Boolean(url.get('app') || url.get('env') || url.get('from') || url.get('to'));
  return (
    <>
      <h1>Scans</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <ApplicationFilter orgId={orgId} value={url.get('app')} onChange={(app) => url.set({ app })} />
        <label>
          Environment{' '}
          <input value={url.get('env')} onChange={(e) => url.set({ env: e.target.value })} placeholder="name" />
        </label>
        <label>
          From <input type="date" value={url.get('from')} onChange={(e) => url.set({ from: e.target.value })} />
        </label>
        <label>
          To <input type="date" value={url.get('to')} onChange={(e) => url.set({ to: e.target.value })} />
        </label>
      </form>
      <QueryView query={scans} what="scans">
        {(data) =>
          data.applicationScanResults!.length === 0 ? (
            filtered ? (
              <Empty title="No scan matches these filters.">
                <button type="button" onClick={() => url.set({ app: '', env: '', from: '', to: '' })}>
                  Clear the filters
                </button>
              </Empty>
            ) : (
              <Empty title="No scans reported yet.">
                <p>
                  Scans arrive from HawkScan, from the reporting API (<code>POST /api/v1/app/{'{appId}'}/scan</code>,
                  then <code>/alerts</code> and <code>/complete</code>; see README) or from an imported ZAP report:{' '}
                  <code>npm run scanner -- import --app &lt;appId&gt; --env &lt;name&gt; zap-report.xml</code> (or{' '}
                  <code>POST /api/v1/app/{'{appId}'}/scan/import</code>). Open an application for its id.
                </p>
              </Empty>
            )
          ) : (
            <DataTable
              className="cards-on-phone"
              rows={data.applicationScanResults!}
              rowKey={(r) => r.scan!.id!}
              columns={[
                {
                  header: 'Started',
                  cell: (r) => <Link to={`/org/${orgId}/scan/${r.scan!.id}`}>{formatTime(r.scan!.timestamp)}</Link>,
                },
                { header: 'Application', cell: (r) => r.scan!.applicationName },
                { header: 'Environment', cell: (r) => r.scan!.env },
                { header: 'Status', cell: (r) => r.scan!.status },
                {
                  header: 'Alerts',
                  cell: (r) =>
                    ALL_SEVERITIES.map((s) => {
                      const count = (r.severityStats as Record<string, number> | undefined)?.[s] ?? 0;
                      return s === 'Info' && count === 0 ? null : <SeverityBadge key={s} severity={s} count={count} />;
                    }),
                },
              ]}
              paging={totalPaging(url, 25, data.totalCount)}
            />
          )
        }
      </QueryView>
    </>
  );
}
