import { Link, useParams } from 'react-router';
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { Empty, QueryView } from '../components/states';
import { SEVERITIES, SeverityBadge, formatTime, scannerName, useTitle } from '../components/ui';
import { SeverityChart } from '../components/SeverityChart';
import { useHasPermission } from '../permissions';
import { ImportReport, ImportSummary, type Imported } from './ImportReport';
import { HostedScanPanel } from './HostedScan';
import { SchedulesPanel } from './Schedules';

const RECENT_SCANS = 20;

export default function EnvironmentPage() {
  const { orgId = '', appId = '', envId = '' } = useParams();
  const view = useQuery({
    queryKey: ['env-view', orgId, envId],
    queryFn: () =>
      unwrap(
        api.GET('/api/v2/org/{orgId}/envs', {
          params: {
            path: { orgId },
            query: {
              envIds: envId,
              appIds: appId,
              includeAppHealthStats: 'true',
              pageSize: '1',
              applicationTypes: 'STANDARD,CLOUD',
            },
          },
        }),
      ),
  });
  const env = view.data?.environments?.[0];
  const scans = useQuery({
    queryKey: ['env-scans', orgId, appId, env?.environmentName],
    enabled: !!env,
    queryFn: () =>
      unwrap(
        api.GET('/api/v1/scan/{orgId}', {
          params: {
            path: { orgId },
            query: {
              appIds: appId,
              envs: env!.environmentName,
              pageSize: String(RECENT_SCANS),
              applicationTypes: 'STANDARD,CLOUD',
            },
          },
        }),
      ),
  });
  useTitle(env ? `${env.applicationName} / ${env.environmentName}` : 'Environment');
  const canImport = useHasPermission(orgId, 'WRITE_SCAN');
  const [imported, setImported] = useState<Imported | null>(null);
  return (
    <QueryView query={view} what="the environment">
      {(data) => {
        const e = data.environments![0];
        if (!e)
          return (
            <Empty title="This environment does not exist (any more).">
              <Link to={`/org/${orgId}/app/${appId}`}>Back to the application</Link>
            </Empty>
          );
        const health = data.findingsHealth!;
        return (
          <>
            <p className="crumbs">
              <Link to={`/org/${orgId}/apps`}>Applications</Link> /{' '}
              <Link to={`/org/${orgId}/app/${appId}`}>{e.applicationName}</Link> /
            </p>
            <h1>{e.environmentName}</h1>
            {e.applicationType === 'CLOUD' && (
              <HostedScanPanel
                orgId={orgId}
                appId={appId}
                appName={e.applicationName ?? ''}
                envName={e.environmentName!}
              />
            )}
            {e.applicationType === 'CLOUD' && (
              <SchedulesPanel orgId={orgId} appId={appId} envName={e.environmentName!} />
            )}
            <section aria-labelledby="last-scan">
              <h2 id="last-scan">Last scan</h2>
              <div role="status" aria-live="polite">
                {imported && <ImportSummary orgId={orgId} result={imported} />}
              </div>
              {e.lastScanId ? (
                <dl className="facts">
                  <dt>Started</dt>
                  <dd>
                    <Link to={`/org/${orgId}/scan/${e.lastScanId}`}>{formatTime(e.lastScanTimestamp)}</Link>
                  </dd>
                  <dt>Status</dt>
                  <dd>{e.lastScanStatus}</dd>
                  <dt>Untriaged findings</dt>
                  <dd>
                    {e.lastScanTotalUntriaged} · <SeverityBadge severity="High" count={e.lastScanHighUntriaged} />{' '}
                    <SeverityBadge severity="Medium" count={e.lastScanMediumUntriaged} />{' '}
                    <SeverityBadge severity="Low" count={e.lastScanLowUntriaged} />
                  </dd>
                  <dt>Scanner</dt>
                  <dd data-testid="env-scanner">{scannerName(e.lastScanHawkscanVersion)}</dd>
                </dl>
              ) : (
                <Empty title="No scan yet.">
                  <p>
                    Run HawkScan with <code>app.applicationId: {appId}</code> and{' '}
                    <code>app.env: {e.environmentName}</code>, report one through the API (
                    <code>POST /api/v1/app/{appId}/scan</code>, see README), or import a scanner's report
                    {canImport ? ' below' : ''} or with the CLI (any size; <code>HAWK_API_KEY</code> and{' '}
                    <code>HAWK_API_URL</code> in the environment):
                  </p>
                  <pre
                    className="code"
                    tabIndex={0}
                    role="region"
                    aria-label="Import command"
                  >{`npm run scanner -- import --app ${appId} --env ${e.environmentName} report.xml`}</pre>
                </Empty>
              )}
            </section>
            {canImport && (
              <section aria-labelledby="import-heading">
                <h2 id="import-heading">Import a scanner report</h2>
                <ImportReport appId={appId} env={e.environmentName!} onImported={setImported} />
              </section>
            )}
            <section aria-labelledby="health">
              <h2 id="health">Findings health</h2>
              <p>
                Untriaged across the latest scans: {health.total} ·{' '}
                {SEVERITIES.map((s) => (
                  <SeverityBadge key={s} severity={s} count={health[s.toLowerCase() as 'high' | 'medium' | 'low']} />
                ))}
              </p>
            </section>
            <section aria-labelledby="trend">
              <h2 id="trend">Recent scans</h2>
              <QueryView query={scans} what="recent scans">
                {(list) =>
                  list.applicationScanResults!.length === 0 ? (
                    <p>No scans to chart yet.</p>
                  ) : (
                    <SeverityChart
                      points={[...list.applicationScanResults!].reverse().map((r) => ({
                        label: formatTime(r.scan?.timestamp),
                        counts: findingsBySeverity(r.alertStats?.alertStatusStats ?? []),
                      }))}
                    />
                  )
                }
              </QueryView>
            </section>
          </>
        );
      }}
    </QueryView>
  );
}

/** Findings (URIs) per severity of one scan, whatever their triage status. */
function findingsBySeverity(stats: { severityStats?: Record<string, number> }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { severityStats } of stats)
    for (const [severity, n] of Object.entries(severityStats ?? {})) counts[severity] = (counts[severity] ?? 0) + n;
  return counts;
}
