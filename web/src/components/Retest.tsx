import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { ActionForm, formatTime } from './ui';

// A finding's "Retest" (docs/HOSTED-SCANS.md, Retests): a hosted run attacks the finding's request again with the
// check that found it; its outcome is read again every 2 s until it has one.

const LIVE_MS = 2000;
const WAITING = ['QUEUED', 'RUNNING'];

const OUTCOMES: Record<string, string> = {
  QUEUED: 'Queued: waiting for a scanner agent',
  RUNNING: 'Running',
  STILL_PRESENT: 'Still present: the check found it again',
  FIXED: 'Fixed, verified by the retest',
  ERROR: 'The retest failed',
};

export function RetestSection({ appId, env, findingHash }: { appId: string; env: string; findingHash: string }) {
  const [retestId, setRetestId] = useState('');
  const retest = useQuery({
    queryKey: ['retest', appId, retestId],
    enabled: retestId !== '',
    refetchInterval: (query) => (WAITING.includes(query.state.data?.status ?? 'QUEUED') ? LIVE_MS : false),
    queryFn: () => unwrap(api.GET('/api/v1/app/{appId}/retests/{retestId}', { params: { path: { appId, retestId } } })),
  });
  const outcome = retest.data;
  return (
    <section aria-labelledby="retest">
      <h2 id="retest">Retest</h2>
      <ActionForm
        submitLabel="Retest"
        onSubmit={async () => {
          const started = await unwrap(
            api.POST('/api/v1/app/{appId}/findings/{findingHash}/retest', {
              params: { path: { appId, findingHash }, query: { env } },
            }),
          );
          setRetestId(started.retestId ?? '');
        }}
      >
        <span className="help">
          Attacks this finding's request again with the check that found it, on the hosted target (CLOUD applications).
        </span>
      </ActionForm>
      {outcome && (
        <p data-testid="retest-status" role="status" aria-live="polite">
          <strong>{OUTCOMES[outcome.status ?? ''] ?? outcome.status}</strong>
          {outcome.endedAt && <span className="muted"> ({formatTime(String(Date.parse(outcome.endedAt)))})</span>}
          {outcome.evidence && <span className="wrap"> {outcome.evidence}</span>}
        </p>
      )}
    </section>
  );
}
