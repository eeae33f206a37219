import { Link, useNavigate } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, Pager, text, useTitle } from '../components/ui';
import { useUrlState } from '../components/url-state';

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
  };
  const apps = useQuery({
    queryKey: ['apps', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v2/org/{orgId}/apps', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  const create = async (data: FormData) => {
    const created = await unwrap(api.POST('/api/v1/org/{orgId}/app', { params: { path: { orgId } }, body: { name: text(data, 'name'), env: text(data, 'env') } }));
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
        </ActionForm>
      </details>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search <input type="search" value={url.get('q')} onChange={(e) => url.set({ q: e.target.value })} placeholder="part of a name" />
        </label>
        <label>
          Status
          <select value={url.get('status')} onChange={(e) => url.set({ status: e.target.value })}>
            <option value="">Any</option>
            <option value="ACTIVE">Active</option>
            <option value="ENV_INCOMPLETE">No environment</option>
          </select>
        </label>
        <label>
          Sort by
          <select value={query.sortField} onChange={(e) => url.set({ sort: e.target.value })}>
            <option value="applicationName">Name</option>
            <option value="applicationStatus">Status</option>
            <option value="applicationId">Id</option>
          </select>
        </label>
        <label>
          Order
          <select value={query.sortDir} onChange={(e) => url.set({ dir: e.target.value })}>
            <option value="asc">Ascending</option>
            <option value="desc">Descending</option>
          </select>
        </label>
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
                <button type="button" onClick={() => url.set({ q: '', status: '' })}>Clear the filters</button>
              </Empty>
            ) : (
              <Empty title="No applications yet.">
                <p>Create one above (or with <code>POST /api/v1/org/{'{orgId}'}/app</code>); then report a scan to it with HawkScan, the reporting API (see README) or an imported ZAP report.</p>
              </Empty>
            )
          ) : (
            <>
              <table>
                <caption className="visually-hidden">Applications, {data.totalCount} in all</caption>
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Status</th>
                    <th scope="col">Type</th>
                  </tr>
                </thead>
                <tbody>
                  {data.applications!.map((app) => (
                    <tr key={app.applicationId}>
                      <td>
                        <Link to={`/org/${orgId}/app/${app.applicationId}`}>{app.name}</Link>
                      </td>
                      <td>{app.applicationStatus === 'ENV_INCOMPLETE' ? 'No environment' : 'Active'}</td>
                      <td>{app.applicationType}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager page={url.page} hasNext={data.hasNext!} onPage={url.setPage} total={data.totalCount} />
            </>
          )
        }
      </QueryView>
    </>
  );
}
