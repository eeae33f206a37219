import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, describeError, unwrap, type Schemas } from '../api/client';
import { formatTime } from '../components/ui';
import { Modal, ModalActions } from '../components/dialog';
import { useHasPermission } from '../permissions';

// Hosted scans on the dashboard (docs/HOSTED-SCANS.md): "Scan now" with a configuration, the live state and phase, Stop and the run's
// log on a CLOUD application's environment, and its target's verification on the application's page.

const ACTIVE = ['QUEUED', 'RUNNING'];
/** How often the page reads an active scan's state and log again. */
const LIVE_MS = 2000;

/**
 * The application's current or last run (a scan or a profile) with its log, or null when it never had one. The
 * status, `{}` then, is asked first: the log's 404 would be a console error on every such page.
 */
export async function currentRun(appId: string) {
  const status = await unwrap(api.GET('/api/v1/app/{appId}/perch/status', { params: { path: { appId } } }));
  if (!status.device) return null;
  return unwrap(api.GET('/api/v1/app/{appId}/perch/log', { params: { path: { appId } } }));
}

const STATE_WORDS: Record<string, string> = {
  QUEUED: 'Queued: waiting for a scanner agent',
  RUNNING: 'Running',
  COMPLETED: 'Completed',
  STOPPED: 'Stopped',
  ERROR: 'Failed',
};

/** The application's hosted scan, as the environment `envName` of a CLOUD application shows it. */
export function HostedScanPanel({
  orgId,
  appId,
  appName,
  envName,
}: {
  orgId: string;
  appId: string;
  appName: string;
  envName: string;
}) {
  const queryClient = useQueryClient();
  const [choosing, setChoosing] = useState(false);
  const canScan = useHasPermission(orgId, 'WRITE_SCAN');
  const canRead = useHasPermission(orgId, 'READ_DEVICE');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = useQuery({
    queryKey: ['hosted-run', appId],
    enabled: canRead === true,
    queryFn: () => currentRun(appId),
    refetchInterval: (query) => (ACTIVE.includes(query.state.data?.state ?? '') ? LIVE_MS : false),
  });
  const current = run.data;
  const active = !!current && ACTIVE.includes(current.state ?? '');
  // When a run ends, the environment's last scan and its recent scans change: read them again.
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      void queryClient.invalidateQueries({ queryKey: ['env-view'] });
      void queryClient.invalidateQueries({ queryKey: ['env-scans'] });
    }
    wasActive.current = active;
  }, [active, queryClient]);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      await queryClient.invalidateQueries({ queryKey: ['hosted-run', appId] });
      await queryClient.invalidateQueries({ queryKey: ['env-view'] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const scanNow = (choice: ConfigurationChoice) =>
    act(() =>
      unwrap(
        api.POST('/api/v1/app/{appId}/perch/start', {
          params: { path: { appId } },
          body: { command: { command: 'START' }, env: envName, ...choice },
        }),
      ),
    );
  const stop = () =>
    act(() =>
      unwrap(
        api.POST('/api/v1/app/{appId}/perch/stop', {
          params: { path: { appId } },
          body: { command: { command: 'STOP' } },
        }),
      ),
    );
  return (
    <section aria-labelledby="hosted-scan">
      <h2 id="hosted-scan">Hosted scan</h2>
      <div className="toolbar">
        {canScan && (
          <button type="button" aria-haspopup="dialog" onClick={() => setChoosing(true)} disabled={busy || active}>
            Scan now
          </button>
        )}
        {canScan && (
          <ScanNowDialog
            open={choosing}
            onOpenChange={setChoosing}
            orgId={orgId}
            savedName={configNameOf(appName, envName)}
            envName={envName}
            onStart={(choice) => {
              setChoosing(false);
              void scanNow(choice);
            }}
          />
        )}
        {canScan && active && (
          <button type="button" className="danger" onClick={stop} disabled={busy}>
            Stop the scan
          </button>
        )}
        <Link to={`/org/${orgId}/devices`}>Scanner agents</Link>
      </div>
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      {canRead === false ? (
        <p>Your role cannot read hosted scans (read:device).</p>
      ) : run.isPending ? null : run.error ? (
        <p role="alert" className="error">
          {describeError(run.error)}
        </p>
      ) : !current ? (
        <p>No hosted scan yet. {canScan ? 'Scan now queues one for a scanner agent of the organization.' : ''}</p>
      ) : (
        <RunView orgId={orgId} run={current} />
      )}
    </section>
  );
}

/** A configuration name of letters, digits, _ and - (setScanConfigurationForOrg's rule), from free text. */
const configNamePart = (text: string) =>
  text
    .trim()
    .replace(/[^a-zA-Z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
/** The name "Save as the environment's configuration" (ProfileScan.tsx) gives the environment's configuration. */
export const configNameOf = (appName: string, env: string) =>
  [configNamePart(appName), configNamePart(env)].filter(Boolean).join('-').slice(0, 64) || 'profile';

/** What startScan is told to scan with: the environment's default configuration, an organization one, or none. */
type ConfigurationChoice = { defaultConfig?: boolean; scanConfig?: string };

/**
 * "Scan now"'s choice of configuration: the environment's default configuration, the organization's scan
 * configurations (the one saved for this environment, "Save as the environment's configuration", chosen first), or
 * none (the target URL only).
 */
function ScanNowDialog({
  open,
  onOpenChange,
  orgId,
  savedName,
  envName,
  onStart,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  orgId: string;
  savedName: string;
  envName: string;
  onStart: (choice: ConfigurationChoice) => void;
}) {
  const canRead = useHasPermission(orgId, 'READ_SCAN_CONFIG');
  const configs = useQuery({
    queryKey: ['org-configs', orgId],
    enabled: canRead === true,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/configuration/{orgId}/list', { params: { path: { orgId }, query: { pageSize: '100' } } }),
      ),
  });
  const names = (configs.data?.configs ?? []).map((c) => c.name!);
  const saved = names.find((name) => name.toLowerCase() === savedName.toLowerCase());
  const [picked, setPicked] = useState<string | null>(null);
  const chosen = picked ?? (saved ? `org:${saved}` : 'default');
  const option = (value: string, label: ReactNode) => (
    <label key={value} className="choice">
      <input
        type="radio"
        name="configuration"
        value={value}
        checked={chosen === value}
        onChange={() => setPicked(value)}
      />{' '}
      {label}
    </label>
  );
  return (
    <Modal
      open={open}
      onOpenChange={onOpenChange}
      title={<>Scan {envName} now</>}
      onSubmit={(event) => {
        event.preventDefault();
        onStart(
          chosen === 'default'
            ? { defaultConfig: true }
            : chosen.startsWith('org:')
              ? { scanConfig: chosen.slice('org:'.length) }
              : {},
        );
      }}
    >
      <fieldset>
        <legend>Configuration to scan with</legend>
        {option('default', <>The default configuration of environment {envName}</>)}
        {names.map((name) =>
          option(
            `org:${name}`,
            <>
              Scan configuration <code>{name}</code>
              {name === saved ? ' (saved for this environment)' : ''}
            </>,
          ),
        )}
        {option('none', 'None: the target URL only, without logging in')}
      </fieldset>
      {configs.error ? (
        <p role="alert" className="error">
          {describeError(configs.error)}
        </p>
      ) : null}
      <ModalActions>
        <button type="submit">Start the scan</button>
      </ModalActions>
    </Modal>
  );
}

function RunView({ orgId, run }: { orgId: string; run: Schemas['hawk.ScanRunLog'] }) {
  const errors = run.errors ?? [];
  return (
    <>
      <dl className="facts" aria-live="polite">
        <dt>State</dt>
        <dd data-testid="hosted-state">{STATE_WORDS[run.state ?? ''] ?? run.state}</dd>
        <dt>Phase</dt>
        <dd data-testid="hosted-phase">{run.phase || '—'}</dd>
        <dt>Environment</dt>
        <dd>{run.env || '—'}</dd>
        <dt>Configuration</dt>
        <dd data-testid="hosted-configuration">{run.configuration || '—'}</dd>
        <dt>Agent</dt>
        <dd>{run.deviceName || '—'}</dd>
        <dt>Last change</dt>
        <dd>{formatTime(run.updatedAt)}</dd>
        <dt>Scan</dt>
        <dd>{run.scanId ? <Link to={`/org/${orgId}/scan/${run.scanId}`}>its findings</Link> : '—'}</dd>
      </dl>
      {errors.length > 0 && (
        <div role="alert" className="state error">
          {errors.map((e, i) => (
            <p key={i}>
              <strong>{e.errorType}</strong>: {e.message}
            </p>
          ))}
        </div>
      )}
      <details open={run.state === 'ERROR'}>
        <summary>The run's log</summary>
        <pre className="code" tabIndex={0} role="region" aria-label="The run's log">
          {run.log || '(nothing logged yet)'}
        </pre>
      </details>
    </>
  );
}

/** A CLOUD application's scan target: whether it is verified, and how to verify it. */
export function TargetVerification({ orgId, app }: { orgId: string; app: Schemas['application.Application'] }) {
  const queryClient = useQueryClient();
  const canCheck = useHasPermission(orgId, 'WRITE_SCAN');
  const [checked, setChecked] = useState<Schemas['hawk.ScanTargetVerification'] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const target = app.cloudScanTarget;
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      setChecked(
        await unwrap(api.POST('/api/v1/app/{appId}/perch/verify', { params: { path: { appId: app.applicationId! } } })),
      );
      await queryClient.invalidateQueries({ queryKey: ['app', app.applicationId] });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const verified = checked ? checked.verified : target?.isDomainVerified;
  return (
    <section aria-labelledby="scan-target">
      <h2 id="scan-target">Hosted scan target</h2>
      <dl className="facts">
        <dt>Target</dt>
        <dd>
          <code>{target?.targetURL || '—'}</code>
        </dd>
        <dt>Verified</dt>
        <dd data-testid="target-verified">{verified ? 'Yes' : 'No'}</dd>
      </dl>
      <p>
        Hosted scans reach a target only once the organization showed it controls the host, checked again when each scan
        starts.
      </p>
      {canCheck && (
        <button type="button" onClick={check} disabled={busy}>
          {busy ? 'Checking…' : 'Check the target now'}
        </button>
      )}
      {error !== null && (
        <p role="alert" className="error">
          {describeError(error)}
        </p>
      )}
      {checked && (
        <div role="status">
          {checked.verified ? (
            <p className="ok">Verified ({checked.method}).</p>
          ) : (
            <>
              <p>Not verified: {checked.problem} Verify it in one of these ways, then check again:</p>
              <ul>
                <li>
                  a DNS TXT record <code>{checked.dnsRecordName}</code> with the value <code>{checked.token}</code>;
                </li>
                <li>
                  or the file <code>{checked.wellKnownUrl}</code> containing <code>{checked.token}</code>;
                </li>
                <li>
                  or ask an operator to allowlist the host (which also allows private addresses):{' '}
                  <code>
                    npm run --silent admin -- allow-scan-domain --org {orgId} --domain {checked.host}
                  </code>
                </li>
              </ul>
            </>
          )}
        </div>
      )}
    </section>
  );
}
