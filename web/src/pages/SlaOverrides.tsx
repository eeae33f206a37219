import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../api/client';
import { QueryView } from '../components/states';
import { ActionForm } from '../components/ui';
import { ConfirmButton } from '../components/dialog';
import { RowsTable } from '../components/DataTable';
import { useHasPermission } from '../permissions';

// An application's days to fix a finding, and its environments' (docs/GOVERNANCE.md, Overrides): each severity's
// days come from the environment's override, else the application's, else the organization's policy.

type Days = Schemas['hawk.SlaDays'];
const SEVERITIES = ['High', 'Medium', 'Low'] as const;

/** A cell: the days that apply, marked when this place sets them itself. */
function DaysCell({ days, override }: { days?: Days; override?: Days }) {
  return (
    <>
      {SEVERITIES.map((s) => (
        <td key={s}>
          {days?.[s] ?? ''}
          {override?.[s] ? <span className="muted"> (set here)</span> : null}
        </td>
      ))}
    </>
  );
}

export function SlaOverrides({ orgId, appId }: { orgId: string; appId: string }) {
  const queryClient = useQueryClient();
  const canEdit = useHasPermission(orgId, 'WRITE_POLICY');
  const sla = useQuery({
    queryKey: ['app-sla', appId],
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}/sla', { params: { path: { appId } } })),
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['app-sla', appId] });
  return (
    <section aria-labelledby="sla-heading">
      <h2 id="sla-heading">Days to fix (SLA)</h2>
      <QueryView query={sla} what="the SLA days">
        {(data) => {
          const places = [
            { id: '', name: 'The application', days: data.days, override: data.override },
            ...(data.environments ?? []).map((e) => ({
              id: e.environmentId!,
              name: `Environment ${e.environmentName}`,
              days: e.days,
              override: e.override,
            })),
          ];
          return (
            <>
              <p className="help">
                The organization's policy gives High {data.organizationDays?.High}, Medium{' '}
                {data.organizationDays?.Medium} and Low {data.organizationDays?.Low} days. An application or an
                environment may set its own for some severities.
              </p>
              <RowsTable columns={['Where', 'High', 'Medium', 'Low', '']} caption="Days to fix a finding, by place">
                {places.map((p) => (
                  <tr key={p.id || 'app'}>
                    <th scope="row">{p.name}</th>
                    <DaysCell days={p.days} override={p.override} />
                    <td>
                      {canEdit && SEVERITIES.some((s) => p.override?.[s]) && (
                        <ConfirmButton
                          label={`Remove the override of ${p.name.toLowerCase()}`}
                          title={`Remove the SLA override of ${p.name.toLowerCase()}?`}
                          onConfirm={async () => {
                            await unwrap(
                              p.id
                                ? api.DELETE('/api/v1/app/{appId}/env/{envId}/sla', {
                                    params: { path: { appId, envId: p.id } },
                                  })
                                : api.DELETE('/api/v1/app/{appId}/sla', { params: { path: { appId } } }),
                            );
                            await refresh();
                          }}
                        >
                          <p>Its findings then follow the days of the place above it.</p>
                        </ConfirmButton>
                      )}
                    </td>
                  </tr>
                ))}
              </RowsTable>
              {canEdit && (
                <ActionForm
                  submitLabel="Set days"
                  onSubmit={async (form) => {
                    const days: Record<string, number> = {};
                    for (const s of SEVERITIES) {
                      const value = String(form.get(s) ?? '').trim();
                      if (value) days[s] = Number(value);
                    }
                    const place = String(form.get('place') ?? '');
                    await unwrap(
                      place
                        ? api.PUT('/api/v1/app/{appId}/env/{envId}/sla', {
                            params: { path: { appId, envId: place } },
                            body: { days },
                          })
                        : api.PUT('/api/v1/app/{appId}/sla', { params: { path: { appId } }, body: { days } }),
                    );
                    await refresh();
                  }}
                >
                  <label>
                    For{' '}
                    <select name="place">
                      {places.map((p) => (
                        <option key={p.id || 'app'} value={p.id}>
                          {p.name.toLowerCase()}
                        </option>
                      ))}
                    </select>
                  </label>
                  {SEVERITIES.map((s) => (
                    <label key={s}>
                      {s} days <input name={s} type="number" min={1} max={3650} placeholder="inherited" />
                    </label>
                  ))}
                </ActionForm>
              )}
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
