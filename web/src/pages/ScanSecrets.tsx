import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ActionForm, text } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { RowsTable } from '../components/DataTable';
import { useHasPermission } from '../permissions';

// An application's scan secrets (docs/HOSTED-SCANS.md, "Scan secrets"): write-only. Listed by name and the time
// each was last set; a value is typed into a password field, sent once, and never read back.

export function ScanSecrets({ orgId, appId }: { orgId: string; appId: string }) {
  const queryClient = useQueryClient();
  const canWrite = useHasPermission(orgId, 'WRITE_APPLICATION');
  const secrets = useQuery({
    queryKey: ['app-secrets', appId],
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}/secrets', { params: { path: { appId } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['app-secrets', appId] });
  return (
    <section aria-labelledby="scan-secrets">
      <h2 id="scan-secrets">Scan secrets</h2>
      <p className="help">
        Login secrets a scan configuration references as <code>{'${NAME}'}</code>: the application&apos;s, then the
        organization&apos;s, then the scanner agent&apos;s environment. Values are sealed and never shown again; setting
        a name that exists replaces its value.
      </p>
      <QueryView query={secrets} what="the scan secrets">
        {(data) =>
          (data.secrets ?? []).length === 0 ? (
            <Empty title="No scan secrets yet." />
          ) : (
            <RowsTable columns={['Name', 'Last set', '']} caption="The application's scan secrets">
              {data.secrets!.map((secret) => (
                <tr key={secret.name}>
                  <th scope="row">
                    <code>{secret.name}</code>
                  </th>
                  <td>{secret.updatedAt ? new Date(secret.updatedAt).toLocaleString() : '—'}</td>
                  <td>
                    {canWrite && (
                      <ConfirmButton
                        label={`Delete the secret ${secret.name}`}
                        title={`Delete the scan secret ${secret.name}?`}
                        onConfirm={async () => {
                          await unwrap(
                            api.DELETE('/api/v1/app/{appId}/secrets/{name}', {
                              params: { path: { appId, name: secret.name! } },
                            }),
                          );
                          await refresh();
                        }}
                      >
                        <p>
                          Scans whose configuration references <code>{`\${${secret.name}}`}</code> then take it from the
                          organization&apos;s secrets or the agent&apos;s environment, or fail to log in.
                        </p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </RowsTable>
          )
        }
      </QueryView>
      {canWrite && (
        <ActionForm
          submitLabel="Set secret"
          onSubmit={async (data) => {
            await unwrap(
              api.PUT('/api/v1/app/{appId}/secrets/{name}', {
                params: { path: { appId, name: text(data, 'name') } },
                body: { value: String(data.get('value') ?? '') },
              }),
            );
            await refresh();
          }}
        >
          <label>
            Secret name{' '}
            <input
              name="name"
              required
              maxLength={128}
              pattern="[A-Za-z_][A-Za-z0-9_]*"
              title="a variable name: letters, digits and _, not starting with a digit"
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <label>
            Value <input name="value" type="password" required maxLength={8192} autoComplete="new-password" />
          </label>
        </ActionForm>
      )}
    </section>
  );
}
