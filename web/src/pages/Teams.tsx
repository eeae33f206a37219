import { Link, useNavigate, useParams } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { DataTable, totalPaging } from '../components/DataTable';
import { useUrlState } from '../components/url-state';

export default function TeamsPage() {
  useTitle('Teams');
  const { orgId = '' } = useParams();
  const url = useUrlState();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const query = { search: url.get('q') || undefined, pageSize: '50', pageToken: String(url.page) };
  const teams = useQuery({
    queryKey: ['teams', orgId, query],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/teams', { params: { path: { orgId }, query } })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <h1>Teams</h1>
      <p className="help">
        An application given to a team is visible only to that team's members (and to users without team restrictions).
      </p>
      <details className="create">
        <summary>New team</summary>
        <ActionForm
          submitLabel="Create team"
          onSubmit={async (data) => {
            const created = await unwrap(
              api.POST('/api/v1/org/{orgId}/team', { params: { path: { orgId } }, body: { name: text(data, 'name') } }),
            );
            await queryClient.invalidateQueries({ queryKey: ['teams', orgId] });
            navigate(`/org/${orgId}/team/${created.team!.id}`);
          }}
        >
          <label>
            Name <input name="name" required maxLength={255} />
          </label>
        </ActionForm>
      </details>
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Search <input type="search" value={url.get('q')} onChange={(e) => url.set({ q: e.target.value })} />
        </label>
      </form>
      <QueryView query={teams} what="teams">
        {(data) =>
          data.teams!.length === 0 ? (
            <Empty title={url.get('q') ? 'No team matches.' : 'No teams yet.'}>
              <p>Teams group users and applications; create one above.</p>
            </Empty>
          ) : (
            <DataTable
              rows={data.teams!}
              rowKey={(t) => t.id!}
              columns={[
                { header: 'Team', cell: (t) => <Link to={`/org/${orgId}/team/${t.id}`}>{t.name}</Link> },
                { header: 'Members', cell: (t) => t.users!.length },
                {
                  header: 'Applications',
                  cell: (t) => t.applications!.map((a) => a.applicationName).join(', ') || '—',
                },
              ]}
              paging={totalPaging(url, 50, data.totalCount)}
            />
          )
        }
      </QueryView>
    </>
  );
}
