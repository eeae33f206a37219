import { useState, type FormEvent } from 'react';
import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { CopyButton, formatTime } from '../components/ui';
import { Modal, ModalActions } from '../components/dialog';
import { useHasPermission } from '../permissions';
import { configNameOf, currentRun } from './HostedScan';

// Profile scans on a CLOUD application's page (docs/PROFILE-SCANS.md): "Profile this target", the latest result
// (classification, testability and its reasons, the API description found with its validation and "Use as hosted
// description", the login markers, the suggested configuration with a copy button and "Save as the environment's
// configuration") and the earlier results.

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

export function ProfileScanPanel({
  orgId,
  appId,
  appName,
  environments,
}: {
  orgId: string;
  appId: string;
  appName: string;
  environments: string[];
}) {
  const queryClient = useQueryClient();
  const canLaunch = useHasPermission(orgId, 'WRITE_DEVICE');
  const canReadRun = useHasPermission(orgId, 'READ_DEVICE');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  // The application's current run (a scan or a profile): a profile is under way while it is active.
  const run = useQuery({
    queryKey: ['hosted-run', appId],
    enabled: canReadRun === true,
    queryFn: () => currentRun(appId),
    refetchInterval: (query) => (ACTIVE.includes(query.state.data?.state ?? '') ? LIVE_MS : false),
  });
  const active = ACTIVE.includes(run.data?.state ?? '');
  const results = useQuery({
    // Read again whenever the application's run changes (a profile that ends stores its result).
    queryKey: ['profile-results', appId, run.data?.scanKey, run.data?.state],
    // The last list stays shown while the next loads: the forms below it keep what the user chose.
    placeholderData: keepPreviousData,
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
          <LatestProfile result={latest} orgId={orgId} appId={appId} />
          <SaveAsEnvironmentConfig
            key={latest.scanId}
            orgId={orgId}
            appName={appName}
            environments={environments}
            configuration={latest.suggestedScanConfig ?? ''}
          />
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

function LatestProfile({ result, orgId, appId }: { result: Result; orgId: string; appId: string }) {
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
        <dd data-testid="profile-description">
          {result.discoveredOpenapiSpecPath ? <code>{result.discoveredOpenapiSpecPath}</code> : 'none found'}
          {result.discoveredOpenapiSpecStatus
            ? ` (${DESCRIPTION_STATUS_WORDS[result.discoveredOpenapiSpecStatus]})`
            : ''}
        </dd>
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
      <DiscoveredDescription result={result} orgId={orgId} appId={appId} />
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

const DESCRIPTION_STATUS_WORDS: Record<string, string> = {
  VALID: 'valid',
  INVALID: 'not valid',
  NOT_VALIDATED: 'not validated',
};

/**
 * The discovered description checked with the hosted-description validator: a valid one (or one the validator could
 * not finish) can become the application's hosted description in one step (useDiscoveredOpenApiSpec, which
 * validates it again); an invalid one shows why.
 */
function DiscoveredDescription({ result, orgId, appId }: { result: Result; orgId: string; appId: string }) {
  const canWrite = useHasPermission(orgId, 'WRITE_SCAN_CONFIG');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [used, setUsed] = useState<{ openapiVersion?: string; fileSize?: string } | null>(null);
  const status = result.discoveredOpenapiSpecStatus;
  if (status !== 'VALID' && status !== 'INVALID' && status !== 'NOT_VALIDATED') return null;
  const use = async () => {
    setBusy(true);
    setError(null);
    try {
      setUsed(
        await unwrap(
          api.POST('/api/v1/app/{appId}/profile/results/{scanId}/use-spec', {
            params: { path: { appId, scanId: result.scanId! } },
          }),
        ),
      );
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      {status !== 'VALID' && (
        <div role="note" aria-label="Why the API description cannot be hosted as it is">
          <p>
            {status === 'INVALID'
              ? 'The API description the profile found is not valid, so it cannot become the hosted description as it is:'
              : 'The API description the profile found was not validated (using it validates it again):'}
          </p>
          <ul>
            {(result.discoveredOpenapiSpecProblem ?? '').split(/; (?=[`/]|and \d+ more$)/).map((problem, i) => (
              <li key={i}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      {canWrite && status !== 'INVALID' && (
        <div className="toolbar">
          <button type="button" disabled={busy} onClick={use}>
            Use as hosted description
          </button>
        </div>
      )}
      {used && (
        <p role="status" className="ok">
          {result.discoveredOpenapiSpecPath} is now the application&apos;s hosted API description (OpenAPI{' '}
          {used.openapiVersion}, {used.fileSize} bytes).
        </p>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
    </>
  );
}

/** The suggested configuration for another environment: its `app.env` line (always the block's own key). */
const withEnv = (configuration: string, env: string) =>
  configuration.replace(/^ {2}env: .*$/m, `  env: ${JSON.stringify(env)}`);

/**
 * Saves the suggested configuration as an environment's scan configuration: an organization scan configuration
 * (setScanConfigurationForOrg, validated by the service) named after the application and the chosen environment,
 * with its `app.env`. Replacing one of that name asks first.
 */
function SaveAsEnvironmentConfig({
  orgId,
  appName,
  environments,
  configuration,
}: {
  orgId: string;
  appName: string;
  environments: string[];
  configuration: string;
}) {
  const canWrite = useHasPermission(orgId, 'WRITE_SCAN_CONFIG');
  const queryClient = useQueryClient();
  const [env, setEnv] = useState('');
  const suggested = /^ {2}env: "?([^"\n]*)"?$/m.exec(configuration)?.[1] ?? '';
  const chosen = env || (environments.includes(suggested) ? suggested : (environments[0] ?? ''));
  const [name, setName] = useState<string | null>(null);
  const configName = name ?? configNameOf(appName, chosen);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState('');
  const [replacing, setReplacing] = useState(false);
  if (!canWrite || !configuration || environments.length === 0) return null;

  const save = async () => {
    await unwrap(
      api.POST('/api/v1/configuration/{orgId}/update', {
        params: { path: { orgId } },
        body: { name: configName, conf: withEnv(configuration, chosen), configType: 'APP' },
      }),
    );
    await queryClient.invalidateQueries({ queryKey: ['org-configs', orgId] });
    setSaved(configName);
  };
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    setSaved('');
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      // One of that name already exists: replacing it is asked first. Names are case-insensitive; the list is
      // asked, not the configuration itself, whose 404 would be a console error.
      const named = await unwrap(
        api.GET('/api/v1/configuration/{orgId}/list', {
          params: { path: { orgId }, query: { query: configName, pageSize: '100' } },
        }),
      );
      if (!named.configs?.some((c) => c.name?.toLowerCase() === configName.toLowerCase())) return save();
      setReplacing(true);
    });
  };
  return (
    <>
      <h3>Save as the environment&apos;s configuration</h3>
      <p>
        Saves the suggested configuration as a scan configuration of the organization, for the environment you choose.
        Hosted scans and the scanner use it by name (<code>scanConfig</code>); set the secrets it names where the scan
        runs.
      </p>
      <form className="inline-form" onSubmit={submit} aria-label="Save as the environment's configuration">
        <label>
          Environment
          <select
            value={chosen}
            onChange={(e) => {
              setEnv(e.target.value);
              setName(null);
            }}
          >
            {environments.map((e) => (
              <option key={e} value={e}>
                {e}
              </option>
            ))}
          </select>
        </label>
        <label>
          Configuration name
          <input
            value={configName}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={64}
            pattern="[a-zA-Z0-9_\-]+"
            title="letters, digits, _ and -"
          />
        </label>
        <button type="submit" disabled={busy}>
          Save as the environment&apos;s configuration
        </button>
      </form>
      {saved && (
        <p role="status" className="ok">
          Saved as the scan configuration {saved} (environment {chosen}).
        </p>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      <Modal
        open={replacing}
        onOpenChange={setReplacing}
        title={<>Replace the scan configuration {configName}?</>}
        onSubmit={(event) => {
          event.preventDefault();
          setReplacing(false);
          void run(save);
        }}
      >
        <p>
          The organization already has a scan configuration named {configName}. Saving replaces it with the suggested
          one for the environment {chosen}.
        </p>
        <ModalActions>
          <button type="submit">Replace it</button>
        </ModalActions>
      </Modal>
    </>
  );
}
