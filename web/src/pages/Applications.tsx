import { Link, useNavigate } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, SeverityBadge, text, useTitle } from '../components/ui';
import type { Schemas } from '../api/client';
import { DataTable } from '../components/DataTable';
import { useUrlState } from '../components/url-state';
import { SortSelects } from '../components/SortSelects';

const PAGE_SIZES = ['25', '50'];

type Risk = Schemas['hawk.ApplicationRisk'];

/** The last scan's verdict: how it ended and what it left untriaged. */
function verdict(app: Risk) {
  if (!app.lastScanStatus) return 'Never scanned';
  if (app.lastScanStatus === 'ERROR') return 'Failed';
  if (app.lastScanStatus === 'STARTED') return 'Running';
  return app.lastScanUntriaged ? `${app.lastScanUntriaged} untriaged` : 'Passed: nothing untriaged';
}

/** Open issues by severity, as the overview's riskiest applications count them (docs/GOVERNANCE.md). */
function OpenCounts({ app }: { app: Risk }) {
  return (
    <>
      <SeverityBadge severity="High" count={app.openHigh ?? 0} />{' '}
      <SeverityBadge severity="Medium" count={app.openMedium ?? 0} />{' '}
      <SeverityBadge severity="Low" count={app.openLow ?? 0} />
    </>
  );
}

export function ApplicationsPage({ orgId }: { orgId: string }) {
  useTitle('Applications');
  const url = useUrlState();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const sortField = (url.get('sort') || 'risk') as 'risk' | 'name' | 'lastScannedAt';
  const query = {
    query: url.get('q') || undefined,
    sortField,
    sortDir: (url.get('dir') || (sortField === 'name' ? 'asc' : 'desc')).toUpperCase() as 'ASC' | 'DESC',
    applicationStatus: (url.get('status') || undefined) as 'ACTIVE' | 'ENV_INCOMPLETE' | undefined,
    pageSize: url.get('size', '25'),
    pageToken: String(url.page),
  };
  // Every type, CLOUD applications (hosted scans) too, with their risk (listApplicationRisk).
  const apps = useQuery({
    queryKey: ['apps', orgId, 'risk', query],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/apps/risk', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  const create = async (data: FormData) => {
    const created = await unwrap(
      api.POST('/api/v1/org/{orgId}/app', {
        params: { path: { orgId } },
        body: {
          name: text(data, 'name'),
          env: text(data, 'env'),
          ...(text(data, 'target')
            ? { applicationType: 'CLOUD' as const, cloudScanTargetURL: text(data, 'target') }
            : {}),
        },
      }),
    );
    await queryClient.invalidateQueries({ queryKey: ['apps', orgId] });
    navigate(`/org/${orgId}/app/${created.applicationId}`);
  };
  return (
    <>
      <h1>Applications</h1>
      <details className="create">
        <summary>New application</summary>
        <ActionForm onSubmit={create} submitLabel="Create application">
          <label>
            Name <input name="name" required maxLength={255} />
          </label>
          <label>
            First environment <input name="env" required defaultValue="development" maxLength={255} />
          </label>
          <label>
            Hosted scan target (optional: a CLOUD application the service scans){' '}
            <input name="target" type="url" placeholder="https://app.example.com/" maxLength={2048} />
          </label>
        </ActionForm>
      </details>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search{' '}
          <input
            type="search"
            value={url.get('q')}
            onChange={(e) => url.set({ q: e.target.value })}
            placeholder="part of a name"
          />
        </label>
        <label>
          Status
          <select value={url.get('status')} onChange={(e) => url.set({ status: e.target.value })}>
            <option value="">Any</option>
            <option value="ACTIVE">Active</option>
            <option value="ENV_INCOMPLETE">No environment</option>
          </select>
        </label>
        <SortSelects
          url={url}
          fields={{ risk: 'Risk', lastScannedAt: 'Last scan', name: 'Name' }}
          field={query.sortField}
          dir={query.sortDir.toLowerCase()}
        />
        <label>
          Per page
          <select value={query.pageSize} onChange={(e) => url.set({ size: e.target.value })}>
            {PAGE_SIZES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
      </form>
      <QueryView query={apps} what="applications">
        {(data) =>
          data.applications!.length === 0 ? (
            url.get('q') || url.get('status') ? (
              <Empty title="No application matches these filters.">
                <button type="button" onClick={() => url.set({ q: '', status: '' })}>
                  Clear the filters
                </button>
              </Empty>
            ) : (
              <Empty title="No applications yet.">
                <p>
                  Create one above (or with <code>POST /api/v1/org/{'{orgId}'}/app</code>); then report a scan to it
                  with HawkScan, the reporting API (see README) or import a ZAP report: an environment's page shows the
                  command.
                </p>
              </Empty>
            )
          ) : (
            <DataTable
              caption={`Applications, ${data.totalCount} in all, by ${sortField === 'risk' ? 'risk' : sortField === 'name' ? 'name' : 'last scan'}`}
              rows={data.applications!}
              rowKey={(app) => app.applicationId!}
              columns={[
                {
                  header: 'Name',
                  className: 'wrap',
                  cell: (app) => <Link to={`/org/${orgId}/app/${app.applicationId}`}>{app.name}</Link>,
                },
                { header: 'Open issues', cell: (app) => <OpenCounts app={app} /> },
                {
                  header: 'Last scan',
                  cell: (app) =>
                    app.lastScannedAt ? (
                      <>
                        <Link to={`/org/${orgId}/scan/${app.lastScanId}`}>{app.lastScannedAt.slice(0, 10)}</Link> (
                        {app.lastScanEnvironmentName})
                      </>
                    ) : (
                      'never'
                    ),
                },
                { header: 'Verdict', cell: verdict },
                {
                  header: 'SLA breaches',
                  cell: (app) =>
                    app.overdueTotal
                      ? `${app.overdueTotal} (High ${app.overdueHigh}, Medium ${app.overdueMedium}, Low ${app.overdueLow})`
                      : 'none',
                },
                {
                  header: 'Status',
                  cell: (app) =>
                    app.environments === 0
                      ? 'No environment'
                      : `${app.environments} environment${app.environments === 1 ? '' : 's'}`,
                },
                { header: 'Type', cell: (app) => app.applicationType },
              ]}
              paging={{ page: url.page, hasNext: data.hasNext!, onPage: url.setPage, total: String(data.totalCount) }}
            />
          )
        }
      </QueryView>
    </>
  );
}
