import { Link, useParams } from 'react-router';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { SeverityBadge, formatTime, useTitle } from '../components/ui';
import { DataTable } from '../components/DataTable';
import { useUrlState } from '../components/url-state';
import { SortSelects } from '../components/SortSelects';

type SortField = 'environmentName' | 'applicationName' | 'scanDate' | 'scanFindingsCounts';

export default function EnvironmentsPage() {
  useTitle('Environments');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const query = {
    query: url.get('q') || undefined,
    sortField: (url.get('sort') || 'applicationName') as SortField,
    sortDir: url.get('dir') || 'asc',
    lastScanStatus: url.get('status') || undefined,
    pageSize: '50',
    pageToken: String(url.page),

    applicationTypes: 'STANDARD,CLOUD', // hosted-scan (CLOUD) applications too
  };
  const envs = useQuery({
    queryKey: ['envs', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v2/org/{orgId}/envs', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1>Environments</h1>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{' '}
          <input
            type="search"
            value={url.get('q')}
            onChange={(e) => url.set({ q: e.target.value })}
            placeholder="application or environment"
          />
        </label>
        <label>
          Last scan
          <select value={url.get('status')} onChange={(e) => url.set({ status: e.target.value })}>
            <option value="">Any</option>
            <option value="LAST_SCAN_STATUS_SUCCESS">Completed</option>
            <option value="LAST_SCAN_STATUS_IN_PROGRESS">Running</option>
            <option value="LAST_SCAN_STATUS_ERRORED">Failed</option>
            <option value="LAST_SCAN_STATUS_UNSPECIFIED">Never scanned</option>
          </select>
        </label>
        <SortSelects
          url={url}
          fields={{
            applicationName: 'Application',
            environmentName: 'Environment',
            scanDate: 'Last scan date',
            scanFindingsCounts: 'Untriaged findings',
          }}
          field={query.sortField}
          dir={query.sortDir}
        />
      </form>
      <QueryView query={envs} what="environments">
        {(data) =>
          data.environments!.length === 0 ? (
            <Empty title="No environment matches.">
              <p>
                Environments belong to applications: <Link to={`/org/${orgId}/apps`}>create an application</Link> with
                its first environment.
              </p>
            </Empty>
          ) : (
            <DataTable
              className="cards-on-phone"
              rows={data.environments!}
              rowKey={(e) => e.environmentId!}
              columns={[
                {
                  header: 'Application',
                  cell: (e) => <Link to={`/org/${orgId}/app/${e.applicationId}`}>{e.applicationName}</Link>,
                },
                {
                  header: 'Environment',
                  cell: (e) => (
                    <Link to={`/org/${orgId}/app/${e.applicationId}/env/${e.environmentId}`}>{e.environmentName}</Link>
                  ),
                },
                {
                  header: 'Last scan',
                  cell: (e) =>
                    e.lastScanId ? `${formatTime(e.lastScanTimestamp)} (${e.lastScanStatus})` : 'never scanned',
                },
                {
                  header: 'Untriaged',
                  cell: (e) => (
                    <>
                      <SeverityBadge severity="High" count={e.lastScanHighUntriaged} />{' '}
                      <SeverityBadge severity="Medium" count={e.lastScanMediumUntriaged} />{' '}
                      <SeverityBadge severity="Low" count={e.lastScanLowUntriaged} />
                    </>
                  ),
                },
              ]}
              paging={{ page: url.page, hasNext: data.hasNext!, onPage: url.setPage, total: data.totalCount }}
            />
          )
        }
      </QueryView>
    </>
  );
}
