import { Link, useNavigate } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { DataTable } from '../components/DataTable';
import { useUrlState } from '../components/url-state';
import { SortSelects } from '../components/SortSelects';

const PAGE_SIZES = ['25', '50', '100', '1000'];

export function ApplicationsPage({ orgId }: { orgId: string }) {
  useTitle('Applications');
  const url = useUrlState();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = {
    query: url.get('q') || undefined,
    sortField: (url.get('sort') || 'applicationName') as 'applicationName' | 'applicationId' | 'applicationStatus',
    sortDir: url.get('dir') || 'asc',
    applicationStatus: url.get('status') || undefined,
    pageSize: url.get('size', '50'),
    pageToken: String(url.page),
    // CLOUD applications (hosted scans) too: the list's default is STANDARD only, as in the public API.
    applicationTypes: 'STANDARD,CLOUD',
  };
  const apps = useQuery({
    queryKey: ['apps', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v2/org/{orgId}/apps', { params: { path: { orgId }, query } })),
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
          fields={{ applicationName: 'Name', applicationStatus: 'Status', applicationId: 'Id' }}
          field={query.sortField}
          dir={query.sortDir}
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
              caption={`Applications, ${data.totalCount} in all`}
              rows={data.applications!}
              rowKey={(app) => app.applicationId!}
              columns={[
                {
                  header: 'Name',
                  cell: (app) => <Link to={`/org/${orgId}/app/${app.applicationId}`}>{app.name}</Link>,
                },
                {
                  header: 'Status',
                  cell: (app) => (app.applicationStatus === 'ENV_INCOMPLETE' ? 'No environment' : 'Active'),
                },
                { header: 'Type', cell: (app) => app.applicationType },
              ]}
              paging={{ page: url.page, hasNext: data.hasNext!, onPage: url.setPage, total: data.totalCount }}
            />
          )
        }
      </QueryView>
    </>
  );
}
