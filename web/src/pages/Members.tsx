import { SecretPanel } from '../components/SecretPanel';
import { useState } from 'react';
import { useParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text, useTitle } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { DataTable } from '../components/DataTable';
import { useHasPermission } from '../permissions';
import { useUser } from '../user';

// Members: their roles, invitations, role changes and removal (docs/IDENTITY.md "Members and roles").

type Member = Schemas['hawk.Member'];
type RoleDefinition = Schemas['hawk.RoleDefinition'];

const ROLE_LABELS: Record<string, string> = {
  OWNER: 'Owner',
  ADMIN: 'Admin',
  MEMBER: 'Member',
  READ_ONLY: 'Read-only',
  SCANNER: 'Scanner/CI',
  CUSTOM: 'Custom',
};
const label = (roleName: string | undefined) => ROLE_LABELS[roleName ?? ''] ?? roleName ?? '';

/** The link an invitee opens: the dashboard's sign-in reads the token from the fragment, which no server sees. */
const invitationLink = (token: string) => `${window.location.origin}/#invitation=${token}`;

export default function MembersPage() {
  useTitle('Members');
  const { orgId = '' } = useParams();
  const queryClient = useQueryClient();
  const manager = useHasPermission(orgId, 'WRITE_MEMBER');
  const me = useUser().data?.user?.external?.id;
  const members = useQuery({
    queryKey: ['member-roles', orgId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/roles', { params: { path: { orgId }, query: { pageSize: '100' } } })),
  });
  const refresh = async () => {
    await queryClient.invalidateQueries({ queryKey: ['member-roles', orgId] });
    await queryClient.invalidateQueries({ queryKey: ['invitations', orgId] });
    await queryClient.invalidateQueries({ queryKey: ['user'] });
  };
  return (
    <>
      <h1>Members</h1>
      <p className="help">
        A member's role sets what they may do; a change applies to their next request. Only owners make or change
        owners, nobody grants a permission they do not hold, and the last owner stays.
      </p>
      {manager && <Invite orgId={orgId} roles={members.data?.roles ?? []} onInvited={refresh} />}
      <QueryView query={members} what="the members">
        {(data) =>
          data.members!.length === 0 ? (
            <Empty title="No members." />
          ) : (
            <DataTable
              rows={data.members!}
              rowKey={(member) => member.userId!}
              columns={[
                {
                  header: 'Member',
                  cell: (member) => (
                    <>
                      {member.fullName || member.userId}
                      {member.userId === me && ' (you)'}
                      <br />
                      <span className="help">{member.email}</span>
                    </>
                  ),
                },
                { header: 'Role', cell: (member) => label(member.roleName) },
                { header: 'Permissions', cell: (member) => member.permissions?.length ?? 0 },
                {
                  header: 'Joined',
                  cell: (member) => (member.createdAt ? new Date(member.createdAt).toLocaleDateString() : '—'),
                },
                ...(manager
                  ? [
                      {
                        header: 'Actions',
                        cell: (member: NonNullable<typeof data.members>[number]) => (
                          <MemberActions orgId={orgId} member={member} roles={data.roles ?? []} onChanged={refresh} />
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          )
        }
      </QueryView>
      {manager && <Invitations orgId={orgId} onChanged={refresh} />}
    </>
  );
}

function MemberActions({
  orgId,
  member,
  roles,
  onChanged,
}: {
  orgId: string;
  member: Member;
  roles: RoleDefinition[];
  onChanged: () => Promise<unknown>;
}) {
  const path = { orgId, userId: member.userId! };
  const who = member.fullName || member.email || member.userId;
  const everything = roles.find((r) => r.name === 'OWNER')?.permissions ?? [];
  return (
    <>
      <ActionForm
        submitLabel="Change role"
        onSubmit={async (data) => {
          await unwrap(
            api.PUT('/api/v1/org/{orgId}/members/{userId}', {
              params: { path },
              body: { role: text(data, 'role') } as never,
            }),
          );
          await onChanged();
        }}
      >
        <label>
          Role of {who}
          <select name="role" defaultValue={member.roleName === 'CUSTOM' ? 'MEMBER' : member.roleName}>
            {roles.map((r) => (
              <option key={r.name} value={r.name}>
                {label(r.name)}
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
      <details>
        <summary>Custom permissions</summary>
        <ActionForm
          submitLabel="Save permissions"
          className="stacked-form"
          onSubmit={async (data) => {
            await unwrap(
              api.PUT('/api/v1/org/{orgId}/members/{userId}', {
                params: { path },
                body: { permissions: data.getAll('permissions').map(String) } as never,
              }),
            );
            await onChanged();
          }}
        >
          <fieldset>
            <legend>Permissions of {who}</legend>
            {everything.map((p) => (
              <label key={p} className="check">
                <input type="checkbox" name="permissions" value={p} defaultChecked={member.permissions?.includes(p)} />{' '}
                {p}
              </label>
            ))}
          </fieldset>
        </ActionForm>
      </details>
      <ConfirmButton
        label={`Remove ${who}`}
        title={`Remove ${who} from the organization?`}
        onConfirm={async () => {
          await unwrap(api.DELETE('/api/v1/org/{orgId}/members/{userId}', { params: { path } }));
          await onChanged();
        }}
      >
        <p>Their next request to this organization is refused. Their API keys stay theirs.</p>
      </ConfirmButton>
    </>
  );
}

function Invite({
  orgId,
  roles,
  onInvited,
}: {
  orgId: string;
  roles: RoleDefinition[];
  onInvited: () => Promise<unknown>;
}) {
  // The link is shown once, from this answer; nothing keeps it after Done or leaving the page.
  const [created, setCreated] = useState<{ email: string; link: string } | null>(null);
  return (
    <>
      {created && (
        <SecretPanel
          value={created.link}
          testId="invitation-link"
          copyLabel="Copy link"
          onDone={() => setCreated(null)}
        >
          Send this link to <strong>{created.email}</strong>. It works once and will not be shown again.
        </SecretPanel>
      )}
      <details className="create">
        <summary>Invite a member</summary>
        <ActionForm
          submitLabel="Invite"
          className="stacked-form"
          onSubmit={async (data) => {
            const answer = await unwrap(
              api.POST('/api/v1/org/{orgId}/invitations', {
                params: { path: { orgId } },
                body: { email: text(data, 'email'), role: text(data, 'role') } as never,
              }),
            );
            setCreated({ email: answer.invitation!.email!, link: invitationLink(answer.token!) });
            await onInvited();
          }}
        >
          <label>
            E-mail <input name="email" type="email" required maxLength={254} />
          </label>
          <label>
            Role
            {/* The least-privileged role to start from; keyed on the roles so it applies once they have loaded
                (an uncontrolled select keeps its first option, Owner, otherwise). */}
            <select name="role" defaultValue="READ_ONLY" key={roles.map((r) => r.name).join()}>
              {roles.map((r) => (
                <option key={r.name} value={r.name}>
                  {label(r.name)}
                </option>
              ))}
            </select>
          </label>
        </ActionForm>
      </details>
    </>
  );
}

function Invitations({ orgId, onChanged }: { orgId: string; onChanged: () => Promise<unknown> }) {
  const invitations = useQuery({
    queryKey: ['invitations', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/invitations', { params: { path: { orgId } } })),
  });
  return (
    <>
      <h2>Pending invitations</h2>
      <QueryView query={invitations} what="the invitations">
        {(data) =>
          data.invitations!.length === 0 ? (
            <Empty title="No pending invitations." />
          ) : (
            <DataTable
              rows={data.invitations!}
              rowKey={(invitation) => invitation.id!}
              columns={[
                { header: 'E-mail', cell: (invitation) => invitation.email },
                { header: 'Role', cell: (invitation) => label(invitation.roleName) },
                {
                  header: 'Expires',
                  cell: (invitation) => (invitation.expiresAt ? new Date(invitation.expiresAt).toLocaleString() : '—'),
                },
                {
                  header: 'Actions',
                  cell: (invitation) => (
                    <ConfirmButton
                      label={`Revoke the invitation of ${invitation.email}`}
                      title={`Revoke the invitation of ${invitation.email}?`}
                      onConfirm={async () => {
                        await unwrap(
                          api.DELETE('/api/v1/org/{orgId}/invitations/{invitationId}', {
                            params: { path: { orgId, invitationId: invitation.id! } },
                          }),
                        );
                        await onChanged();
                      }}
                    >
                      <p>Its link stops working at once.</p>
                    </ConfirmButton>
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
