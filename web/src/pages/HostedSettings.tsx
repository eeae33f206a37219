import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, unwrap } from '../api/client';
import { QueryView } from '../components/states';
import { ActionForm } from '../components/ui';

// A CLOUD application's hosted scan settings (docs/HOSTED-SCANS.md, Agent pools): the labels an agent must carry to
// take its runs. The service refuses another team's pool label, naming it.

/** `net=internal, region=eu` as the list the service takes. */
const labelsOf = (value: string) =>
  value
    .split(/[\s,]+/)
    .map((label) => label.trim())
    .filter(Boolean);

export function AgentRequirements({ orgId, appId }: { orgId: string; appId: string }) {
  const queryClient = useQueryClient();
  const settings = useQuery({
    queryKey: ['hosted-settings', appId],
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}/perch/settings', { params: { path: { appId } } })),
  });
  return (
    <section aria-labelledby="agent-labels">
      <h2 id="agent-labels">Scanner agents for this application</h2>
      <QueryView query={settings} what="the hosted scan settings">
        {(data) => (
          <>
            <p data-testid="required-labels">
              {(data.requiredLabels ?? []).length
                ? `Its hosted scans go only to agents with the labels ${data.requiredLabels!.join(', ')}; they wait while none is online.`
                : 'Any scanner agent of the organization may take its hosted scans.'}{' '}
              <Link to={`/org/${orgId}/devices`}>Scanner agents</Link>
            </p>
            <ActionForm
              submitLabel="Save required labels"
              onSubmit={async (form) => {
                await unwrap(
                  api.PUT('/api/v1/app/{appId}/perch/settings', {
                    params: { path: { appId } },
                    body: { requiredLabels: labelsOf(String(form.get('labels') ?? '')) },
                  }),
                );
                await queryClient.invalidateQueries({ queryKey: ['hosted-settings', appId] });
              }}
            >
              <label>
                Required agent labels (key=value, separated by commas; empty: any agent)
                <input
                  name="labels"
                  defaultValue={(data.requiredLabels ?? []).join(', ')}
                  key={(data.requiredLabels ?? []).join(',')}
                  maxLength={1300}
                  spellCheck={false}
                />
              </label>
            </ActionForm>
          </>
        )}
      </QueryView>
    </section>
  );
}
