import { Link, useParams } from 'react-router';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { ALL_SEVERITIES, SeverityBadge, formatTime, scannerName, useTitle } from '../components/ui';
import { statusLabel, untriagedOf } from '../components/triage-status';

export default function ScanPage() {
  const { orgId = '', scanId = '' } = useParams();
  const alerts = useQuery({
    queryKey: ['scan-alerts', scanId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/scan/{scanId}/alerts', {
          params: { path: { scanId }, query: { pageSize: '1000', sortField: 'name' } },
        }),
      ),
  });
  const result = alerts.data?.applicationScanResults?.[0];
  useTitle(result ? `Scan of ${result.scan?.applicationName}` : 'Scan');
  return (
    <QueryView query={alerts} what="the scan">
      {(data) => {
        const r = data.applicationScanResults![0];
        if (!r) return <Empty title="This scan does not exist (any more)." />;
        const scan = r.scan!;
        const bySeverity = ALL_SEVERITIES.map((severity) => ({
          severity,
          alerts: r.applicationAlerts!.filter((a) => a.severity === severity),
        }));
        return (
          <>
            <p className="crumbs">
              <Link to={`/org/${orgId}/scans`}>Scans</Link> /{' '}
              <Link to={`/org/${orgId}/app/${scan.applicationId}`}>{scan.applicationName}</Link> /{' '}
              <Link to={`/org/${orgId}/app/${scan.applicationId}/env/${scan.envId}`}>{scan.env}</Link> /
            </p>
            <h1>Scan of {formatTime(scan.timestamp)}</h1>
            <dl className="facts">
              <dt>Status</dt>
              <dd>{scan.status}</dd>
              <dt>Host</dt>
              <dd>{r.appHost || '—'}</dd>
              <dt>Scanner</dt>
              <dd data-testid="scan-scanner">{scannerName(scan.version)}</dd>
              {hostedConfiguration(r.tags) && (
                <>
                  <dt>Configuration</dt>
                  <dd data-testid="scan-configuration">{hostedConfiguration(r.tags)}</dd>
                </>
              )}
              <dt>Findings</dt>
              <dd>
                {r.alertStats?.totalAlerts ?? 0} in {r.alertStats?.uniqueAlerts ?? 0} alerts
              </dd>
              <dt>Untriaged</dt>
              <dd data-testid="scan-untriaged">{untriagedOf(r.alertStats?.alertStatusStats ?? [])}</dd>
              <dt>By status</dt>
              <dd>
                {(r.alertStats?.alertStatusStats ?? []).length === 0
                  ? '—'
                  : r
                      .alertStats!.alertStatusStats!.map((s) => `${statusLabel(s.alertStatus)}: ${s.totalCount ?? 0}`)
                      .join(' · ')}
              </dd>
            </dl>
            {/* Only hosted scans (tagged with their configuration) have a coverage record: others would answer 404. */}
            {hostedConfiguration(r.tags) && <ScanCoverage scanId={scanId} />}
            {r.configHash && <ScanConfiguration appId={scan.applicationId!} configHash={r.configHash} />}
            {scan.status === 'COMPLETED' && <ScanChanges orgId={orgId} scanId={scanId} />}
            {r.applicationAlerts!.length === 0 &&
              (scan.status === 'STARTED' ? (
                <Empty title="This scan is still running.">
                  <p>
                    Its alerts appear here as the scanner reports them (this page shows what has arrived when you open
                    or reload it).
                  </p>
                </Empty>
              ) : (
                <Empty title="This scan reported no alerts." />
              ))}
            {bySeverity.map(({ severity, alerts }) =>
              alerts.length === 0 ? null : (
                <section key={severity} aria-labelledby={`sev-${severity}`}>
                  <h2 id={`sev-${severity}`}>
                    <SeverityBadge severity={severity} /> {alerts.length} {alerts.length === 1 ? 'alert' : 'alerts'}
                  </h2>
                  <ul className="rows">
                    {alerts.map((a) => (
                      <li key={a.pluginId}>
                        <Link to={`/org/${orgId}/scan/${scanId}/alert/${encodeURIComponent(a.pluginId!)}`}>
                          {a.name}
                        </Link>
                        <span className="muted">
                          {' '}
                          plugin {a.pluginId} · {a.uriCount} {a.uriCount === 1 ? 'finding' : 'findings'} ·{' '}
                          {untriagedOf(a.alertStatusStats ?? [])} untriaged
                          {a.cweId && <> · CWE-{a.cweId}</>}
                        </span>
                      </li>
                    ))}
                  </ul>
                </section>
              ),
            )}
          </>
        );
      }}
    </QueryView>
  );
}

/** The configuration a hosted scan's run was started with, in words (its tag: docs/HOSTED-SCANS.md, Runs). */
const hostedConfiguration = (tags: { name?: string; value?: string }[] | undefined) =>
  tags?.find((tag) => tag.name === 'HAWK_SCAN_CONFIGURATION')?.value;

const VERDICTS: Record<string, string> = {
  COMPLETE: 'Complete',
  PARTIAL: 'Partial',
  AUTH_DEGRADED: 'Authentication degraded',
  LOW_COVERAGE: 'Low coverage',
};

/**
 * A hosted scan's coverage verdict and its reasons (getScanCoverage; docs/HOSTED-SCANS.md, Coverage). A scan without
 * a coverage record (404: imported and CLI scans) shows nothing.
 */
function ScanCoverage({ scanId }: { scanId: string }) {
  const coverage = useQuery({
    queryKey: ['scan-coverage', scanId],
    retry: false,
    queryFn: () =>
      unwrap(api.GET('/api/v1/scan/{scanId}/coverage', { params: { path: { scanId } } })).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }),
  });
  const c = coverage.data;
  if (!c) return null;
  const reasons = c.reasons ?? [];
  return (
    <section aria-labelledby="scan-coverage">
      <h2 id="scan-coverage">Coverage</h2>
      <p data-testid="scan-verdict">
        <strong>{VERDICTS[c.verdict ?? ''] ?? c.verdict}</strong>{' '}
        <span className="muted">
          {c.pages} pages · {c.requests} requests, {c.authenticatedRequests} with the session
        </span>
      </p>
      {reasons.length > 0 && (
        <ul data-testid="scan-verdict-reasons">
          {reasons.map((reason) => (
            <li key={reason}>{reason}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The configuration the scan ran with, fetched when opened. */
function ScanConfiguration({ appId, configHash }: { appId: string; configHash: string }) {
  const [open, setOpen] = useState(false);
  const config = useQuery({
    queryKey: ['config', appId, configHash],
    enabled: open,
    queryFn: () =>
      unwrap(api.GET('/api/v1/app/{appId}/config/{configHash}', { params: { path: { appId, configHash } } })),
  });
  return (
    <details onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Scan configuration</summary>
      {open && (
        <QueryView query={config} what="the configuration">
          {(data) => (
            <pre className="code" tabIndex={0}>
              {JSON.stringify(data.conf, null, 2)}
            </pre>
          )}
        </QueryView>
      )}
    </details>
  );
}

/** The findings of each kind of change the page lists; it says how many more there are. */
const LISTED_CHANGES = 50;

/** The kinds of change of a diff, in the order the page shows them: new findings first. */
const CHANGES = [
  ['new', 'New'],
  ['regressed', 'Regressed'],
  ['fixed', 'Fixed'],
] as const;

type ScanDiff = NonNullable<Awaited<ReturnType<typeof fetchDiff>>>;
const fetchDiff = (scanId: string) =>
  unwrap(api.GET('/api/v1/scan/{scanId}/diff', { params: { path: { scanId }, query: {} } }));
/** A set's size: its total (the first page lists up to 20,000 entries across the sets). */
const total = (d: ScanDiff, set: 'new' | 'regressed' | 'fixed' | 'unchanged') => d.totals?.[set] ?? d[set]?.length ?? 0;

/**
 * What changed against the previous completed scan of the same tool stream (getScanDiff; docs/DATA-MODEL.md, Scan
 * diffs): new findings first, then regressed and fixed ones, with the count of unchanged ones.
 */
function ScanChanges({ orgId, scanId }: { orgId: string; scanId: string }) {
  const diff = useQuery({
    queryKey: ['scan-diff', scanId],
    queryFn: () => fetchDiff(scanId),
  });
  return (
    <section aria-labelledby="scan-changes" data-testid="scan-changes">
      <h2 id="scan-changes">What changed</h2>
      <QueryView query={diff} what="what changed">
        {(d) => (
          <>
            <p className="muted" data-testid="scan-changes-against">
              {d.againstScanId ? (
                <>
                  Against the <Link to={`/org/${orgId}/scan/${d.againstScanId}`}>previous scan</Link> of the same tool:{' '}
                  {total(d, 'new')} new, {total(d, 'regressed')} regressed, {total(d, 'fixed')} fixed,{' '}
                  {total(d, 'unchanged')} unchanged.
                </>
              ) : (
                <>The first scan of its tool here: every finding is new ({total(d, 'new')}).</>
              )}
            </p>
            {CHANGES.map(([kind, label]) =>
              (d[kind]?.length ?? 0) === 0 ? null : (
                <div key={kind}>
                  <h3>
                    {label} ({total(d, kind)})
                  </h3>
                  <ul className="rows" data-testid={`scan-changes-${kind}`}>
                    {d[kind]!.slice(0, LISTED_CHANGES).map((f) => (
                      <li key={f.findingHash}>
                        <SeverityBadge severity={f.severity!} /> {f.name}{' '}
                        <span className="muted">
                          {f.method} {f.uri}
                          {f.param && <> · {f.param}</>}
                        </span>
                      </li>
                    ))}
                  </ul>
                  {total(d, kind) > LISTED_CHANGES && (
                    <p className="muted" data-testid={`scan-changes-${kind}-more`}>
                      and {total(d, kind) - LISTED_CHANGES} more.
                    </p>
                  )}
                </div>
              ),
            )}
          </>
        )}
      </QueryView>
    </section>
  );
}
