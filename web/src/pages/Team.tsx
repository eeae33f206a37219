import { useDeferredValue, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { QueryView } from '../components/states';
import { useHasPermission } from '../permissions';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { useUser } from '../user';

type Team = Schemas['organization.Team'];

// PUT /team/{teamId} replaces the team's whole state (docs/API.md, Teams), so every change sends the full lists.
export default function TeamPage() {
  const { orgId = '', teamId = '' } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const me = useUser().data?.user?.external;
  const team = useQuery({
    queryKey: ['team', teamId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/team/{teamId}', { params: { path: { orgId, teamId } } })),
  });
  const apps = useQuery({
    queryKey: ['apps-all', orgId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/org/{orgId}/apps', {
          params: { path: { orgId }, query: { pageSize: '1000', sortField: 'applicationName' } },
        }),
      ),
  });
  const allTeams = useQuery({
    queryKey: ['teams-all', orgId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/teams', { params: { path: { orgId }, query: { pageSize: '1000' } } })),
  });
  const [notice, setNotice] = useState('');
  const canListMembers = useHasPermission(orgId, 'READ_MEMBER');
  useTitle(team.data?.team?.name ?? 'Team');

  const save = async (
    current: Team,
    change: { name?: string; userIds?: string[]; applicationIds?: string[] },
    done: string,
  ) => {
    await unwrap(
      api.PUT('/api/v1/org/{orgId}/team/{teamId}', {
        params: { path: { orgId, teamId } },
        body: {
          name: change.name ?? current.name!,
          userIds: change.userIds ?? current.users!.map((u) => u.userId!),
          applicationIds: change.applicationIds ?? current.applications!.map((a) => a.applicationId!),
        },
      }),
    );
    await Promise.all(
      ['team', 'teams', 'teams-all', 'user'].map((key) => queryClient.invalidateQueries({ queryKey: [key] })),
    );
    setNotice(done);
  };

  // For the buttons (the forms show their own errors): a failed change says why in the notice.
  const saveFromButton = (current: Team, change: Parameters<typeof save>[1], done: string) =>
    void save(current, change, done).catch((e) => setNotice(`Not saved: ${describeError(e)}`));

  const ownerOf = (appId: string) =>
    allTeams.data?.teams?.find((t) => t.id !== teamId && t.applications!.some((a) => a.applicationId === appId));

  return (
    <QueryView query={team} what="the team">
      {({ team: t }) => {
        const current = t!;
        const memberIds = current.users!.map((u) => u.userId!);
        const appIds = current.applications!.map((a) => a.applicationId!);
        const candidates = (apps.data?.applications ?? []).filter((a) => !appIds.includes(a.applicationId!));
        return (
          <>
            <p className="crumbs">
              <Link to={`/org/${orgId}/teams`}>Teams</Link> /
            </p>
            <h1>{current.name}</h1>
            <p role="status" className="notice-inline">
              {notice}
            </p>
            <div className="toolbar">
              <details>
                <summary>Rename</summary>
                <ActionForm
                  submitLabel="Save name"
                  onSubmit={(data) => save(current, { name: text(data, 'name') }, 'Renamed.')}
                >
                  <label>
                    New name <input name="name" required defaultValue={current.name} maxLength={255} />
                  </label>
                </ActionForm>
              </details>
              <ConfirmButton
                label="Delete team"
                title={`Delete the team ${current.name}?`}
                onConfirm={async () => {
                  await unwrap(
                    api.DELETE('/api/v1/org/{orgId}/team/{teamId}', { params: { path: { orgId, teamId } } }),
                  );
                  await queryClient.invalidateQueries({ queryKey: ['teams', orgId] });
                  navigate(`/org/${orgId}/teams`);
                }}
              >
                <p>
                  Its applications stay, without a team (visible to the whole organization). Its members stay in the
                  organization.
                </p>
              </ConfirmButton>
            </div>

            <h2>Members</h2>
            {current.users!.length === 0 ? (
              <p>No members yet.</p>
            ) : (
              <ul className="rows">
                {current.users!.map((u) => (
                  <li key={u.userId}>
                    {u.userName || u.email} <span className="muted">{u.email}</span>
                    <button
                      type="button"
                      onClick={() =>
                        saveFromButton(
                          current,
                          { userIds: memberIds.filter((id) => id !== u.userId) },
                          `Removed ${u.email}.`,
                        )
                      }
                    >
                      Remove<span className="visually-hidden"> {u.email}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {canListMembers ? (
              <MemberPicker
                orgId={orgId}
                memberIds={memberIds}
                onAdd={(u) => save(current, { userIds: [...memberIds, u.id] }, `Added ${u.label}.`)}
              />
            ) : (
              <>
                {canListMembers === false && (
                  <p className="help">
                    Your role cannot list the organization's members (it lacks read:member): add a member by user id.
                  </p>
                )}
                <ActionForm
                  submitLabel="Add member"
                  onSubmit={(data) => save(current, { userIds: [...memberIds, text(data, 'userId')] }, 'Member added.')}
                >
                  <label>
                    User id{' '}
                    <input
                      name="userId"
                      required
                      pattern="[0-9a-fA-F\-]{36}"
                      title="a user id (UUID)"
                      defaultValue={me && !memberIds.includes(me.id!) ? me.id : ''}
                    />
                  </label>
                </ActionForm>
              </>
            )}

            <h2>Applications</h2>
            {current.applications!.length === 0 ? (
              <p>No applications yet.</p>
            ) : (
              <ul className="rows">
                {current.applications!.map((a) => (
                  <li key={a.applicationId}>
                    <Link to={`/org/${orgId}/app/${a.applicationId}`}>{a.applicationName}</Link>
                    <button
                      type="button"
                      onClick={() =>
                        saveFromButton(
                          current,
                          { applicationIds: appIds.filter((id) => id !== a.applicationId) },
                          `Removed ${a.applicationName}.`,
                        )
                      }
                    >
                      Remove<span className="visually-hidden"> {a.applicationName}</span>
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <ActionForm
              submitLabel="Add application"
              onSubmit={(data) => {
                const appId = text(data, 'appId');
                const from = ownerOf(appId);
                return save(
                  current,
                  { applicationIds: [...appIds, appId] },
                  from ? `Moved from ${from.name}.` : 'Application added.',
                );
              }}
            >
              <label>
                Application
                <select name="appId" required>
                  {candidates.map((a) => {
                    const owner = ownerOf(a.applicationId!);
                    return (
                      <option key={a.applicationId} value={a.applicationId}>
                        {a.name}
                        {owner ? ` (moves it from ${owner.name})` : ''}
                      </option>
                    );
                  })}
                </select>
              </label>
            </ActionForm>
          </>
        );
      }}
    </QueryView>
  );
}

const MEMBER_RESULTS = 10;

/** Finds organization members by part of their name or e-mail (listMembers, read:member) to add them to the team. */
function MemberPicker({
  orgId,
  memberIds,
  onAdd,
}: {
  orgId: string;
  memberIds: string[];
  onAdd: (user: { id: string; label: string }) => Promise<unknown>;
}) {
  const [search, setSearch] = useState('');
  const pattern = useDeferredValue(search.trim());
  const [error, setError] = useState<unknown>(null);
  const members = useQuery({
    queryKey: ['members', orgId, pattern],
    // One more than shown: the rest are reached by narrowing the search. Members already in the team are filtered
    // out below, so a page of them can hide others; the total says when to narrow.
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/org/{orgId}/members', {
          params: {
            path: { orgId },
            query: { pattern: pattern || undefined, pageSize: String(MEMBER_RESULTS + memberIds.length) },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const candidates = (members.data?.users ?? [])
    .map((u) => u.external!)
    .filter((u) => !memberIds.includes(u.id!))
    .slice(0, MEMBER_RESULTS);
  const total = Number(members.data?.totalCount ?? 0);
  return (
    <div className="member-picker">
      <form className="inline-form" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          Find a member to add{' '}
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="part of a name or e-mail"
            maxLength={256}
          />
        </label>
      </form>
      <QueryView query={members} what="members">
        {() =>
          candidates.length === 0 ? (
            <p className="help">
              {pattern
                ? `No other member's name or e-mail contains “${pattern}”.`
                : 'Every member of the organization is in this team.'}
            </p>
          ) : (
            <>
              <ul className="rows" aria-label="Members you can add">
                {candidates.map((u) => {
                  const label = u.fullName || u.email || u.id!;
                  return (
                    <li key={u.id}>
                      {label} {u.fullName && <span className="muted">{u.email}</span>}
                      <button
                        type="button"
                        onClick={() => {
                          setError(null);
                          onAdd({ id: u.id!, label }).catch(setError);
                        }}
                      >
                        Add<span className="visually-hidden"> {label}</span>
                      </button>
                    </li>
                  );
                })}
              </ul>
              {total > memberIds.length + candidates.length && (
                <p className="help">{total} members match: type more of a name or e-mail to narrow the list.</p>
              )}
            </>
          )
        }
      </QueryView>
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
    </div>
  );
}
