import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { DataTable } from '../components/DataTable';

// The organization's issue tracker connections (docs/TRACKERS.md): Jira Cloud, Jira Server / Data Center and GitHub.
// A token is sent once, when the connection is made or its token replaced, and never shown again. Reading needs
// read:integration, changing write:integration (the service answers 401 otherwise, shown as the list's error).

type Tracker = Schemas['hawk.Tracker'];
type Kind = 'jira' | 'jiraServer' | 'github';

const KIND_LABELS: Record<Kind, string> = {
  jira: 'Jira Cloud',
  jiraServer: 'Jira Server / Data Center',
  github: 'GitHub',
};

const whereOf = (t: Tracker) => (t.kind === 'github' ? t.repository : `${t.project} (${t.issueType})`);

export default function TrackerConnectionsPage() {
  useTitle('Issue trackers');
  const { orgId = '' } = useParams();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<Kind>('jira');
  const list = useQuery({
    queryKey: ['trackers', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/integrations/trackers', { params: { path: { orgId } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['trackers', orgId] });
  const update = async (tracker: Tracker, body: Record<string, unknown>) => {
    await unwrap(
      api.PUT('/api/v1/org/{orgId}/integrations/trackers/{trackerId}', {
        params: { path: { orgId, trackerId: tracker.id! } },
        body: body as never,
      }),
    );
    await refresh();
  };
  return (
    <>
      <h1>Issue trackers</h1>
      <p className="help">
        Findings promoted to a tracker become Jira or GitHub issues, made in the background (a tracker that is down
        never fails a triage or a scan). A ticket is closed once scans no longer find its finding, and one people closed
        as not planned accepts the finding's risk.
      </p>
      <details className="create">
        <summary>Connect a tracker</summary>
        <ActionForm
          submitLabel="Connect"
          className="stacked-form"
          onSubmit={async (data) => {
            const severity = text(data, 'minSeverity');
            const jira = kind !== 'github';
            const baseUrl = text(data, 'baseUrl');
            await unwrap(
              api.POST('/api/v1/org/{orgId}/integrations/trackers', {
                params: { path: { orgId } },
                body: {
                  kind,
                  name: text(data, 'name'),
                  token: text(data, 'token'),
                  ...(baseUrl ? { baseUrl } : {}),
                  ...(jira
                    ? { project: text(data, 'project'), issueType: text(data, 'issueType') || 'Bug' }
                    : { repository: text(data, 'repository') }),
                  ...(kind === 'jira' ? { email: text(data, 'email') } : {}),
                  closeAfterScans: Number(text(data, 'closeAfterScans')) || 1,
                  ...(severity ? { autoPromote: { minSeverity: severity } } : {}),
                } as never,
              }),
            );
            await refresh();
          }}
        >
          <label>
            Kind{' '}
            <select name="kind" value={kind} onChange={(e) => setKind(e.target.value as Kind)}>
              {Object.entries(KIND_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Name <input name="name" maxLength={255} placeholder="Security board" />
          </label>
          {kind === 'github' ? (
            <>
              <label>
                Repository <input name="repository" required placeholder="owner/repository" />
              </label>
              <label>
                API URL (GitHub Enterprise Server only){' '}
                <input name="baseUrl" type="url" placeholder="https://api.github.com" />
              </label>
            </>
          ) : (
            <>
              <label>
                Site URL <input name="baseUrl" type="url" required placeholder="https://acme.atlassian.net" />
              </label>
              <label>
                Project key <input name="project" required placeholder="SEC" />
              </label>
              <label>
                Issue type <input name="issueType" placeholder="Bug" />
              </label>
            </>
          )}
          {kind === 'jira' && (
            <label>
              Account e-mail <input name="email" type="email" required />
            </label>
          )}
          <label>
            {kind === 'jira' ? 'API token' : kind === 'jiraServer' ? 'Personal access token' : 'Token'}{' '}
            <input name="token" type="password" required autoComplete="off" />
          </label>
          <label>
            Close a ticket after this many scans without its finding{' '}
            <input name="closeAfterScans" type="number" min={1} max={20} defaultValue={1} />
          </label>
          <label>
            Promote every new finding at or above{' '}
            <select name="minSeverity" defaultValue="">
              <option value="">(only those promoted by hand)</option>
              <option value="High">High</option>
              <option value="Medium">Medium</option>
              <option value="Low">Low</option>
            </select>
          </label>
        </ActionForm>
      </details>
      <QueryView query={list} what="the tracker connections">
        {(data) =>
          (data.trackers ?? []).length === 0 ? (
            <Empty title="No tracker connected.">
              <p>Connect Jira or GitHub above.</p>
            </Empty>
          ) : (
            <DataTable
              rows={data.trackers!}
              rowKey={(t) => t.id!}
              columns={[
                { header: 'Name', cell: (t) => t.name || <em>unnamed</em> },
                { header: 'Kind', cell: (t) => KIND_LABELS[t.kind as Kind] ?? t.kind },
                {
                  header: 'Where',
                  className: 'wrap',
                  cell: (t) => (
                    <>
                      {whereOf(t)} <span className="muted">{t.baseUrl}</span>
                    </>
                  ),
                },
                {
                  header: 'Promotes',
                  cell: (t) => (t.autoPromote ? `new ${t.autoPromote.minSeverity} and above` : 'by hand'),
                },
                {
                  header: 'Closes after',
                  cell: (t) => `${t.closeAfterScans} scan${t.closeAfterScans === 1 ? '' : 's'}`,
                },
                {
                  header: 'Enabled',
                  cell: (t) => (
                    <button type="button" onClick={() => update(t, { enabled: !t.enabled })}>
                      {t.enabled ? `Disable ${t.name || 'tracker'}` : `Enable ${t.name || 'tracker'}`}
                    </button>
                  ),
                },
                {
                  header: 'Actions',
                  cell: (t) => (
                    <>
                      <ActionForm
                        submitLabel="Replace token"
                        onSubmit={(form) => update(t, { token: text(form, 'token') })}
                      >
                        <label>
                          New token <input name="token" type="password" required autoComplete="off" />
                        </label>
                      </ActionForm>
                      <ConfirmButton
                        label={`Remove ${t.name || t.id}`}
                        title={`Remove the connection ${t.name || t.id}?`}
                        onConfirm={async () => {
                          await unwrap(
                            api.DELETE('/api/v1/org/{orgId}/integrations/trackers/{trackerId}', {
                              params: { path: { orgId, trackerId: t.id! } },
                            }),
                          );
                          await refresh();
                        }}
                      >
                        <p>Nothing more is made, read or closed in it. Its tickets stay there and on their findings.</p>
                      </ConfirmButton>
                    </>
                  ),
                },
              ]}
            />
          )
        }
      </QueryView>
    </>
  );
}
