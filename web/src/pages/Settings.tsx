import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { SecretPanel } from '../components/SecretPanel';
import { DataTable } from '../components/DataTable';
import { useApplications } from '../components/ApplicationFilter';
import { useHasPermission } from '../permissions';
import { SingleSignOnSettings } from './SingleSignOn';
import { SlaPolicySettings } from './SlaPolicy';

// Settings: the signed-in user's API keys (docs/IDENTITY.md "API keys") and, for member managers, every member's
// and the organization's single sign-on.

type ApiKey = Schemas['hawk.ApiKey'];

/** Permissions a key may be narrowed to, as the service names them. */
const PERMISSIONS = [
  'read:application',
  'write:application',
  'read:scan',
  'write:scan',
  'read:scan_config',
  'write:scan_config',
  'read:team',
  'read:audit',
  'read:report',
  'write:triage',
  // A scanner agent's: it registers, polls and reports its runs (docs/HOSTED-SCANS.md "The agent").
  'read:device',
  'write:device',
];

const when = (iso: string | undefined, never: string) => (iso ? new Date(iso).toLocaleString() : never);
/** Application names by id, for the keys narrowed to one. */
type AppNames = Map<string, string>;
const scopeOf = (key: ApiKey, appNames: AppNames) =>
  [
    key.permissions?.length ? key.permissions.join(', ') : 'all of your permissions',
    key.applicationId ? `application ${appNames.get(key.applicationId) ?? key.applicationId}` : '',
  ]
    .filter(Boolean)
    .join('; ');

export default function SettingsPage() {
  useTitle('Settings');
  const { orgId = '' } = useParams();
  const queryClient = useQueryClient();
  const manager = useHasPermission(orgId, 'WRITE_MEMBER');
  const policyReader = useHasPermission(orgId, 'READ_POLICY');
  const policyWriter = useHasPermission(orgId, 'WRITE_POLICY');
  const [created, setCreated] = useState<{ name: string; apiKey: string } | null>(null);
  const keys = useQuery({ queryKey: ['user-keys'], queryFn: () => unwrap(api.GET('/api/v1/user/keys')) });
  const apps = useApplications(orgId);
  const appNames: AppNames = new Map((apps.data?.applications ?? []).map((a) => [a.applicationId!, a.name!]));
  // The members' table lists the caller's keys too.
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ['user-keys'] }),
      queryClient.invalidateQueries({ queryKey: ['org-keys', orgId] }),
    ]);
  return (
    <>
      <h1>Settings</h1>
      <section aria-labelledby="your-keys-heading">
        <h2 id="your-keys-heading">Your API keys</h2>
        <p className="help">
          Keys sign in the scanner, CI and scripts (<code>GET /api/v1/auth/login</code> with <code>X-ApiKey</code>). A
          key is shown once, when it is created; only its hash is kept. Narrow CI keys to what they need.
        </p>
        {created && (
          <SecretPanel value={created.apiKey} testId="new-api-key" copyLabel="Copy key" onDone={() => setCreated(null)}>
            Your new key <strong>{created.name}</strong>. Copy it now: it will not be shown again.
          </SecretPanel>
        )}
        <details className="create">
          <summary>New API key</summary>
          <ActionForm
            submitLabel="Create key"
            className="stacked-form"
            onSubmit={async (data) => {
              const expires = text(data, 'expiresAt');
              const permissions = data.getAll('permissions').map(String);
              const applicationId = text(data, 'applicationId');
              const answer = await unwrap(
                api.POST('/api/v1/user/keys', {
                  body: {
                    name: text(data, 'name'),
                    ...(expires ? { expiresAt: new Date(`${expires}T23:59:59`).toISOString() } : {}),
                    ...(permissions.length ? { permissions } : {}),
                    ...(applicationId ? { applicationId } : {}),
                  } as never,
                }),
              );
              setCreated({ name: answer.key!.name!, apiKey: answer.apiKey! });
              await refresh();
            }}
          >
            <label>
              Name <input name="name" required maxLength={100} placeholder="CI importer" />
            </label>
            <label>
              Expires on (optional) <input name="expiresAt" type="date" />
            </label>
            <fieldset>
              <legend>Only these permissions (none checked: all of yours)</legend>
              {PERMISSIONS.map((p) => (
                <label key={p} className="check">
                  <input type="checkbox" name="permissions" value={p} /> {p}
                </label>
              ))}
            </fieldset>
            <label>
              Only this application
              <select name="applicationId" defaultValue="">
                <option value="">Any application</option>
                {apps.data?.applications?.map((a) => (
                  <option key={a.applicationId} value={a.applicationId}>
                    {a.name}
                  </option>
                ))}
              </select>
            </label>
          </ActionForm>
        </details>
        <QueryView query={keys} what="your API keys">
          {(data) =>
            data.keys!.length === 0 ? (
              <Empty title="No API keys.">
                <p>Create one above.</p>
              </Empty>
            ) : (
              <KeyTable
                keys={data.keys!}
                appNames={appNames}
                onRevoke={async (key) => {
                  await unwrap(api.DELETE('/api/v1/user/keys/{keyId}', { params: { path: { keyId: key.id! } } }));
                  await refresh();
                }}
              />
            )
          }
        </QueryView>
      </section>
      {manager && <MemberKeys orgId={orgId} appNames={appNames} />}
      {manager && <SingleSignOnSettings orgId={orgId} />}
      {policyReader && <SlaPolicySettings orgId={orgId} writer={policyWriter === true} />}
    </>
  );
}

function KeyTable({
  keys,
  appNames,
  showOwner,
  onRevoke,
  revocable = () => true,
}: {
  keys: ApiKey[];
  appNames: AppNames;
  showOwner?: boolean;
  onRevoke: (key: ApiKey) => Promise<unknown>;
  revocable?: (key: ApiKey) => boolean;
}) {
  return (
    <DataTable
      rows={keys}
      rowKey={(key) => key.id!}
      columns={[
        ...(showOwner ? [{ header: 'Member', cell: (key: ApiKey) => key.userEmail || key.userId }] : []),
        { header: 'Name', cell: (key) => key.name || <em>unnamed ({key.id})</em> },
        { header: 'Scope', cell: (key) => scopeOf(key, appNames) },
        { header: 'Created', cell: (key) => when(key.createdAt, '—') },
        { header: 'Last used', cell: (key) => when(key.lastUsedAt, 'never') },
        { header: 'Expires', cell: (key) => when(key.expiresAt, 'never') },
        {
          header: 'Actions',
          cell: (key) =>
            revocable(key) ? (
              <ConfirmButton
                label={`Revoke ${key.name || key.id}`}
                title={`Revoke the key ${key.name || key.id}?`}
                onConfirm={() => onRevoke(key)}
              >
                <p>Sign-ins with it stop at once, and so do the sessions it started.</p>
              </ConfirmButton>
            ) : (
              <span className="help">Whole account: only its user revokes it</span>
            ),
        },
      ]}
    />
  );
}

function MemberKeys({ orgId, appNames }: { orgId: string; appNames: AppNames }) {
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ['org-keys', orgId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/keys', { params: { path: { orgId }, query: { pageSize: '100' } } })),
  });
  return (
    <section aria-labelledby="member-keys-heading">
      <h2 id="member-keys-heading">Members' API keys</h2>
      <p className="help">
        The members' keys that reach this organization (never the keys themselves). Revoke one narrowed to an
        application of this organization that is lost or no longer used; a key of a member's whole account serves their
        other organizations too, so only they revoke it (removing the member ends its access here).
      </p>
      <QueryView query={keys} what="the members' keys">
        {(data) =>
          data.keys!.length === 0 ? (
            <Empty title="No member has an API key." />
          ) : (
            <KeyTable
              keys={data.keys!}
              appNames={appNames}
              showOwner
              revocable={(key) => key.organizationId === orgId}
              onRevoke={async (key) => {
                await unwrap(
                  api.DELETE('/api/v1/org/{orgId}/members/{userId}/keys/{keyId}', {
                    params: { path: { orgId, userId: key.userId!, keyId: key.id! } },
                  }),
                );
                await queryClient.invalidateQueries({ queryKey: ['org-keys', orgId] });
                await queryClient.invalidateQueries({ queryKey: ['user-keys'] });
              }}
            />
          )
        }
      </QueryView>
    </section>
  );
}
