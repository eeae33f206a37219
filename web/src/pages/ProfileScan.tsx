import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, describeError, unwrap, type Schemas } from '../api/client';
import { CopyButton, formatTime } from '../components/ui';
import { useHasPermission } from '../permissions';

// Profile scans on a CLOUD application's page (docs/PROFILE-SCANS.md): "Profile this target", the latest result
// (classification, testability and its reasons, the API description found, the login markers, the suggested
// configuration with a copy button) and the earlier results.

type Result = Schemas['scanresults.ProfileScanResult'];
const ACTIVE = ['QUEUED', 'RUNNING'];
const LIVE_MS = 2000;

const CLASSIFICATION_WORDS: Record<string, string> = {
  APP_SPA_WITH_AUTH: 'Single-page app with a login',
  APP_API_WITH_AUTH: 'API with a login',
  APP_PUBLIC_WEBSITE: 'Website',
  APP_STATIC_SITE: 'Static site',
  APP_CLASSIFICATION_UNKNOWN: 'Unknown (the target did not answer)',
};
const SCORE_WORDS: Record<string, string> = {
  TESTABILITY_HIGH: 'High',
  TESTABILITY_MEDIUM: 'Medium',
  TESTABILITY_LOW: 'Low',
};

export function ProfileScanPanel({ orgId, appId }: { orgId: string; appId: string }) {
  const queryClient = useQueryClient();
  const canLaunch = useHasPermission(orgId, 'WRITE_DEVICE');
  const canReadRun = useHasPermission(orgId, 'READ_DEVICE');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The application's current run (a scan or a profile): a profile is under way while it is active.
  const run = useQuery({
    queryKey: ['hosted-run', appId],
    enabled: canReadRun === true,
    queryFn: async () => {
      try {
        return await unwrap(api.GET('/api/v1/app/{appId}/perch/log', { params: { path: { appId } } }));
      } catch (e) {
        if (e instanceof ApiError && e.status === 404) return null;
        throw e;
      }
    },
    refetchInterval: (query) => (ACTIVE.includes(query.state.data?.state ?? '') ? LIVE_MS : false),
  });
  const active = ACTIVE.includes(run.data?.state ?? '');
  const results = useQuery({
    // Read again whenever the application's run changes (a profile that ends stores its result).
    queryKey: ['profile-results', appId, run.data?.scanKey, run.data?.state],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/app/{appId}/profile/results/list', { params: { path: { appId }, query: { limit: '10' } } }),
      ),
  });
  const launch = async () => {
    setBusy(true);
    setError(null);
    try {
      await unwrap(api.POST('/api/v1/app/{appId}/perch/profile-scan', { params: { path: { appId } } }));
      await queryClient.invalidateQueries({ queryKey: ['hosted-run', appId] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const list = results.data?.profileScanResults ?? [];
  const [latest, ...earlier] = list;
  return (
    <section aria-labelledby="profile-scan">
      <h2 id="profile-scan">Profile</h2>
      <p>
        A profile finds out what the target is and how to test it: its API description, how it logs in, which paths need
        a session, and a scan configuration to start from.
      </p>
      {canLaunch && (
        <div className="toolbar">
          <button type="button" onClick={launch} disabled={busy || active}>
            Profile this target
          </button>
        </div>
      )}
      {active && (
        <p role="status" data-testid="profile-running">
          A {run.data?.phase === 'profiling' ? 'profile' : 'run'} of this target is under way ({run.data?.state}).
        </p>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      {results.isPending ? null : results.error ? (
        <p role="alert" className="error">
          {describeError(results.error)}
        </p>
      ) : !latest ? (
        <p>No profile yet.</p>
      ) : (
        <>
          <LatestProfile result={latest} />
          {earlier.length > 0 && (
            <>
              <h3>Earlier profiles</h3>
              <ul className="rows" aria-label="Earlier profiles">
                {earlier.map((r) => (
                  <li key={r.scanId}>
                    {formatTime(r.timestamp)}: {CLASSIFICATION_WORDS[r.classification ?? ''] ?? r.classification},
                    testability {SCORE_WORDS[r.score ?? ''] ?? r.score}
                    {r.discoveredOpenapiSpecPath ? `, API description at ${r.discoveredOpenapiSpecPath}` : ''}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}

function LatestProfile({ result }: { result: Result }) {
  const markers = result.authMarkers ?? [];
  const paths = result.paths ?? {};
  return (
    <>
      <dl className="facts">
        <dt>Profiled</dt>
        <dd>{formatTime(result.timestamp)}</dd>
        <dt>Classification</dt>
        <dd data-testid="profile-classification">
          {CLASSIFICATION_WORDS[result.classification ?? ''] ?? result.classification}
        </dd>
        <dt>Testability</dt>
        <dd data-testid="profile-score">{SCORE_WORDS[result.score ?? ''] ?? result.score}</dd>
        <dt>API description</dt>
        <dd>{result.discoveredOpenapiSpecPath ? <code>{result.discoveredOpenapiSpecPath}</code> : 'none found'}</dd>
        <dt>Paths</dt>
        <dd>
          {paths.staticCount ?? 0} static, {paths.dynamicCount ?? 0} dynamic, {paths.authProtectedCount ?? 0} behind a
          login
        </dd>
        <dt>Probe</dt>
        <dd>
          {result.requestsSent ?? 0} requests in {Math.round(Number(result.durationMs ?? 0) / 100) / 10} s
          {result.stoppedBy
            ? `, stopped by its ${result.stoppedBy === 'REQUEST_BUDGET' ? 'request' : 'time'} budget`
            : ''}
        </dd>
      </dl>
      {(result.scoreReasons ?? []).length > 0 && (
        <ul aria-label="Why this testability">
          {result.scoreReasons!.map((reason, i) => (
            <li key={i}>{reason}</li>
          ))}
        </ul>
      )}
      <h3>Login markers</h3>
      {markers.length === 0 ? (
        <p>None found: the target seems to need no login.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Marker</th>
              <th scope="col">Confidence</th>
              <th scope="col">Signals</th>
            </tr>
          </thead>
          <tbody>
            {markers.map((m) => (
              <tr key={m.type}>
                <td>{m.type}</td>
                <td>{m.confidence?.replace('AUTH_CONFIDENCE_', '').toLowerCase()}</td>
                <td>
                  {(m.signals ?? []).map((s, i) => (
                    <div key={i}>
                      {s.signalType}: {s.detail}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Suggested configuration</h3>
      <p>Set the secrets it names in the scanner's environment, then check it with hawk-scanner validate.</p>
      <pre className="code" tabIndex={0} role="region" aria-label="Suggested configuration">
        {result.suggestedScanConfig}
      </pre>
      <p>
        <CopyButton value={result.suggestedScanConfig ?? ''} label="Copy the configuration" />
      </p>
      {(result.recommendations ?? []).length > 1 && (
        <>
          <h3>Recommendations</h3>
          <ul>
            {result.recommendations!.slice(1).map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </>
      )}
      {(result.notes ?? []).length > 0 && (
        <details>
          <summary>What the probe cut or left out</summary>
          <ul>
            {result.notes!.map((n, i) => (
              <li key={i}>{n}</li>
            ))}
          </ul>
        </details>
      )}
    </>
  );
}
