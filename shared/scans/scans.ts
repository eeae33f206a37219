import { accessibleApplication } from '../applications/access.ts';
import { HttpError, notFound } from '../errors.ts';
import { SEVERITIES, type Severity } from './inputs.ts';
import { alertsOfScan, getScan, getScanLocation, type AlertRecord, type ScanRecord, type ScanStats } from './repository.ts';
import type { ApplicationRecord } from '../applications/application-repository.ts';
import type { LastScan } from '../applications/environment-repository.ts';
import type { Caller } from '../http/caller.ts';

// What the scan reporting and scan-result operations share: finding a scan by id with the application's access
// rules, the statistics of its alerts, and the public views (scanresults.Scan, application.ApplicationScanResult,
// application.ApplicationAlert).

/**
 * The scan a `/scan/{scanId}` operation addresses, if the caller may use the operation on its application (the
 * application's rules: 404 unknown or another organization's, 401 no permission or another team's).
 * `includeDeleting`: a retried DELETE of an interrupted scan delete resumes it.
 */
export async function accessibleScan(caller: Caller, scanId: string, options: { includeDeleting?: boolean } = {}) {
  const unknown = notFound(`scan ${scanId} not found`);
  const location = await getScanLocation(scanId);
  if (!location) throw unknown;
  // Another organization's scan answers as an unknown one, naming nothing of theirs.
  const { app, membership } = await accessibleApplication(caller, location.applicationId, { teamRestricted: true }).catch((error) => {
    throw error instanceof HttpError && error.statusCode === 404 ? unknown : error;
  });
  const scan = await getScan(location);
  if (!scan || (scan.deleting && !options.includeDeleting)) throw unknown;
  return { app, scan, membership };
}

const bySeverity = (count: (severity: Severity) => number) => Object.fromEntries(SEVERITIES.map((s) => [s, count(s)])) as Record<Severity, number>;

export function statsOf(alerts: AlertRecord[]): ScanStats {
  const counted = alerts.filter((a) => a.uriCount > 0);
  const sum = (list: AlertRecord[]) => list.reduce((n, a) => n + a.uriCount, 0);
  return {
    totalAlerts: sum(counted),
    uniqueAlerts: counted.length,
    urisBySeverity: bySeverity((s) => sum(counted.filter((a) => a.severity === s))),
    alertsBySeverity: bySeverity((s) => counted.filter((a) => a.severity === s).length),
  };
}

/** The frozen statistics of an ended scan, or those of its alerts so far while it runs. */
export async function currentStats(scan: ScanRecord, alerts?: AlertRecord[]): Promise<ScanStats> {
  return scan.stats ?? statsOf(alerts ?? (await alertsOfScan(scan)));
}

/** The environment's last-scan fields (SPEC 2.2) describing this scan; untriaged = all findings (no triage yet). */
export function lastScanOf(scan: ScanRecord): LastScan {
  return {
    lastScanId: scan.scanId,
    lastScanStatus: scan.status,
    lastScanTimestamp: scan.startedAt,
    lastScanCompletedTimestamp: scan.completedAt,
    lastScanDuration: scan.durationSeconds,
    lastScanTotalUntriaged: scan.stats?.totalAlerts ?? 0,
    lastScanHighUntriaged: scan.stats?.urisBySeverity.High ?? 0,
    lastScanMediumUntriaged: scan.stats?.urisBySeverity.Medium ?? 0,
    lastScanLowUntriaged: scan.stats?.urisBySeverity.Low ?? 0,
    latestScanConfigHash: scan.configHash,
    lastScanHawkscanVersion: scan.hawkscanVersion,
  };
}

/** scanresults.Scan; `timestamp` in ms, as the public API's clients observe it. */
export function toScan(scan: ScanRecord, app: ApplicationRecord) {
  return {
    id: scan.scanId,
    applicationId: scan.applicationId,
    applicationName: app.name,
    env: scan.envName,
    envId: scan.environmentId,
    externalUserId: scan.userId,
    status: scan.status,
    timestamp: scan.startedAt,
    version: scan.hawkscanVersion,
  };
}

/** application.AlertStatusStats: every finding is untriaged (UNKNOWN) until triage exists. */
const untriaged = (totalCount: number, severityStats: Record<string, number>) => (totalCount > 0 ? [{ alertStatus: 'UNKNOWN', totalCount, severityStats }] : []);

/** application.ApplicationAlert; `scan` is populated only where the public API does (a single alert's findings). */
export function toAlert(alert: AlertRecord, scan?: ReturnType<typeof toScan>) {
  return {
    pluginId: alert.pluginId,
    name: alert.name,
    description: alert.description,
    severity: alert.severity,
    cweId: alert.cweId,
    references: alert.references,
    uriCount: alert.uriCount,
    alertStatusStats: untriaged(alert.uriCount, { [alert.severity]: alert.uriCount }),
    scan,
  };
}

/** application.ApplicationScanResult: durations in seconds, timestamps in ms. */
export function toScanResult(scan: ScanRecord, app: ApplicationRecord, stats: ScanStats, alerts: AlertRecord[] = []) {
  return {
    scan: toScan(scan, app),
    scanDuration: scan.durationSeconds ?? 0,
    urlCount: scan.urlCount,
    alertStats: { totalAlerts: stats.totalAlerts, uniqueAlerts: stats.uniqueAlerts, alertStatusStats: untriaged(stats.totalAlerts, stats.urisBySeverity) },
    severityStats: stats.alertsBySeverity,
    configHash: scan.configHash,
    appHost: scan.host,
    applicationAlerts: alerts.map((alert) => toAlert(alert)),
    timestamp: scan.startedAt,
    percentComplete: scan.status === 'STARTED' ? 0 : 100,
    tags: scan.tags,
  };
}
