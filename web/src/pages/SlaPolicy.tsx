import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { ActionForm, SEVERITIES, text } from '../components/ui';

// The organization's SLA policy (docs/GOVERNANCE.md, The SLA policy and Risk acceptance that expires): days to fix
// a finding of each severity, and the default and maximum length of a risk acceptance.

const days = (data: FormData, name: string) => {
  const value = text(data, name);
  return value === '' ? null : Number(value);
};

export function SlaPolicySettings({ orgId, writer }: { orgId: string; writer: boolean }) {
  const queryClient = useQueryClient();
  const policy = useQuery({
    queryKey: ['sla-policy', orgId],
    queryFn: () => unwrap(api.GET('/api/v1/org/{orgId}/sla', { params: { path: { orgId } } })),
  });
  return (
    <section aria-labelledby="sla-heading">
      <h2 id="sla-heading">SLA policy</h2>
      <p className="help">
        Days to fix a finding, from its first sighting: each finding's due date in the findings report, the overdue
        lists and <code>--fail-on overdue</code>. A risk acceptance without an end date lasts the default; none may last
        longer than the maximum. Applications and environments may override the days.
      </p>
      <QueryView query={policy} what="the SLA policy">
        {(current) => (
          <ActionForm
            key={current.updatedAt ?? 'default'}
            submitLabel="Save SLA policy"
            className="stacked-form"
            onSubmit={async (data) => {
              await unwrap(
                api.PUT('/api/v1/org/{orgId}/sla', {
                  params: { path: { orgId } },
                  body: {
                    days: Object.fromEntries(SEVERITIES.map((s) => [s, days(data, s)])),
                    riskAcceptance: { defaultDays: days(data, 'defaultDays'), maxDays: days(data, 'maxDays') },
                  } as never,
                }),
              );
              await queryClient.invalidateQueries({ queryKey: ['sla-policy', orgId] });
            }}
          >
            <fieldset disabled={!writer}>
              <legend>Days to fix{current.configured ? '' : ' (the defaults: none set yet)'}</legend>
              {SEVERITIES.map((s) => (
                <label key={s}>
                  {s}
                  <input name={s} type="number" required min={1} max={3650} defaultValue={current.days?.[s] ?? ''} />
                </label>
              ))}
            </fieldset>
            <fieldset disabled={!writer}>
              <legend>Risk acceptance (days; empty: no default, no maximum)</legend>
              <label>
                Default length
                <input
                  name="defaultDays"
                  type="number"
                  min={1}
                  max={3650}
                  defaultValue={current.riskAcceptance?.defaultDays || ''}
                />
              </label>
              <label>
                Maximum length
                <input
                  name="maxDays"
                  type="number"
                  min={1}
                  max={3650}
                  defaultValue={current.riskAcceptance?.maxDays || ''}
                />
              </label>
            </fieldset>
          </ActionForm>
        )}
      </QueryView>
    </section>
  );
}
