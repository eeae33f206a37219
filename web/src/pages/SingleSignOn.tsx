import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { ActionForm, text } from '../components/ui';
import { ConfirmButton } from '../components/dialog';

// Settings, for member managers: the organization's OpenID Connect provider (docs/IDENTITY.md "Single sign-on").
// Mappings are written one a line, `group = ROLE` and `group = team name`; team names are turned into ids here.

// The organization's named roles (docs/IDENTITY.md "Members and roles"), strongest first.
const ROLES = ['OWNER', 'ADMIN', 'MEMBER', 'READ_ONLY', 'SCANNER'] as const;

/** `left = right` lines; blank lines are skipped. */
function pairs(raw: string, what: string): [string, string][] {
  return raw
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const at = line.lastIndexOf('=');
      if (at <= 0) throw new Error(`${what}: write each line as "group = value" ("${line}")`);
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    });
}

export function SingleSignOnSettings({ orgId }: { orgId: string }) {
  const queryClient = useQueryClient();
  const provider = useQuery({
    queryKey: ['sso', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/sso', { params: { path: { orgId } } })),
  });
  const teams = useQuery({
    queryKey: ['sso-teams', orgId],
    queryFn: () =>
      unwrap(api.GET('/api/v1/org/{orgId}/teams', { params: { path: { orgId }, query: { pageSize: '1000' } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['sso', orgId] });
  const signInLink = `${location.origin}/?org=${orgId}`;
  return (
    <section aria-labelledby="sso-heading">
      <h2 id="sso-heading">Single sign-on</h2>
      <p className="help">
        Members sign in with your identity provider (OpenID Connect: Okta, Entra ID, Google, Keycloak, Cognito…).
        Register <code>{`${location.origin}/sso/callback`}</code> as the redirect URI of a confidential web client
        there. People are added on first sign-in; the groups claim can give roles and teams.
      </p>
      <QueryView query={provider} what="the single sign-on setting">
        {(current) => {
          const teamList = teams.data?.teams ?? [];
          const teamName = (id: string) => teamList.find((t) => t.id === id)?.name ?? id;
          return (
            <>
              {current.configured && (
                <p role="status">
                  Sign-in link for your members: <code data-testid="sso-link">{signInLink}</code>
                  {current.enabled ? '' : ' (disabled)'}
                </p>
              )}
              <ActionForm
                key={`${current.updatedAt ?? 'new'}-${teams.isSuccess}`}
                submitLabel={current.configured ? 'Save single sign-on' : 'Set up single sign-on'}
                className="stacked-form"
                onSubmit={async (data) => {
                  const groupRoles = pairs(text(data, 'groupRoles'), 'Groups to roles').map(([group, role]) => {
                    const upper = role.toUpperCase();
                    if (!ROLES.includes(upper as (typeof ROLES)[number]))
                      throw new Error(`Groups to roles: ${role} is not one of ${ROLES.join(', ')}`);
                    return { group, role: upper };
                  });
                  const groupTeams = pairs(text(data, 'groupTeams'), 'Groups to teams').map(([group, name]) => {
                    const team = teamList.find((t) => t.name === name || t.id === name);
                    if (!team) throw new Error(`Groups to teams: no team named ${name}`);
                    return { group, teamId: team.id! };
                  });
                  const secret = text(data, 'clientSecret');
                  const domains = text(data, 'allowedEmailDomains');
                  await unwrap(
                    api.PUT('/api/v1/org/{orgId}/sso', {
                      params: { path: { orgId } },
                      body: {
                        issuer: text(data, 'issuer'),
                        clientId: text(data, 'clientId'),
                        ...(secret ? { clientSecret: secret } : {}),
                        redirectUri: text(data, 'redirectUri'),
                        scopes: text(data, 'scopes').split(/\s+/).filter(Boolean),
                        groupsClaim: text(data, 'groupsClaim') || 'groups',
                        allowedEmailDomains: domains ? domains.split(/[\s,]+/).filter(Boolean) : [],
                        defaultRole: text(data, 'defaultRole'),
                        groupRoles,
                        groupTeams,
                        enabled: data.get('enabled') === 'on',
                      } as never,
                    }),
                  );
                  await refresh();
                }}
              >
                <label>
                  Issuer URL{' '}
                  <input
                    name="issuer"
                    type="url"
                    required
                    defaultValue={current.issuer}
                    placeholder="https://example.okta.com"
                  />
                </label>
                <label>
                  Client ID <input name="clientId" required defaultValue={current.clientId} autoComplete="off" />
                </label>
                <label>
                  Client secret{' '}
                  <input
                    name="clientSecret"
                    type="password"
                    autoComplete="new-password"
                    required={!current.configured}
                    placeholder={current.clientSecretSet ? 'stored (leave empty to keep it)' : ''}
                  />
                </label>
                <label>
                  Redirect URI{' '}
                  <input
                    name="redirectUri"
                    type="url"
                    required
                    defaultValue={current.redirectUri || `${location.origin}/sso/callback`}
                  />
                </label>
                <label>
                  Scopes{' '}
                  <input
                    name="scopes"
                    defaultValue={(current.scopes?.length ? current.scopes : ['openid', 'email', 'profile']).join(' ')}
                  />
                </label>
                <label>
                  Groups claim <input name="groupsClaim" defaultValue={current.groupsClaim || 'groups'} />
                </label>
                <label>
                  Allowed e-mail domains (empty: any){' '}
                  <input
                    name="allowedEmailDomains"
                    defaultValue={(current.allowedEmailDomains ?? []).join(', ')}
                    placeholder="example.com"
                  />
                </label>
                <label>
                  Role of new members without a mapped group{' '}
                  <select name="defaultRole" defaultValue={current.defaultRole || 'MEMBER'}>
                    {ROLES.map((role) => (
                      <option key={role}>{role}</option>
                    ))}
                  </select>
                </label>
                <label>
                  Groups to roles (one a line: <code>group = ADMIN</code>){' '}
                  <textarea
                    name="groupRoles"
                    rows={3}
                    defaultValue={(current.groupRoles ?? []).map((m) => `${m.group} = ${m.role}`).join('\n')}
                  />
                </label>
                <label>
                  Groups to teams (one a line: <code>group = team name</code>){' '}
                  <textarea
                    name="groupTeams"
                    rows={3}
                    defaultValue={(current.groupTeams ?? [])
                      .map((m) => `${m.group} = ${teamName(m.teamId!)}`)
                      .join('\n')}
                  />
                </label>
                <label className="check">
                  <input name="enabled" type="checkbox" defaultChecked={current.configured ? current.enabled : true} />{' '}
                  Enabled
                </label>
              </ActionForm>
              {current.configured && (
                <ConfirmButton
                  label="Remove single sign-on"
                  title="Remove single sign-on?"
                  onConfirm={async () => {
                    await unwrap(api.DELETE('/api/v1/org/{orgId}/sso', { params: { path: { orgId } } }));
                    await refresh();
                  }}
                >
                  <p>Sign-in with the provider stops, and the sessions it started end within 30 minutes.</p>
                </ConfirmButton>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
