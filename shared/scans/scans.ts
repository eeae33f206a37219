import { accessibleApplication } from '../applications/access.ts';
import { HttpError, notFound } from '../errors.ts';
import { RISK_SEVERITIES, SEVERITIES, type Severity } from '../input/severities.ts';
import { alertsOfScan, getScan, getScanLocation } from '../results/scan-repository.ts';
import {
  type AlertRecord,
  type ScanRecord,
  type ScanStats,
  TRIAGE_STATUSES,
  isUntriaged,
  type StatusCounts,
  type TriageStats,
} from '../results/model.ts';
import type { ApplicationRecord, LastScan, StreamHead } from '../applications/model.ts';
import type { Caller } from '../context/caller.ts';
import { pluginCounts, untriagedStats } from '../findings/scan-findings.ts';

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
  const { app, membership } = await accessibleApplication(caller, location.applicationId, {
    teamRestricted: true,
  }).catch((error) => {
    throw error instanceof HttpError && error.statusCode === 404 ? unknown : error;
  });
  const scan = await getScan(location);
  if (!scan || (scan.deleting && !options.includeDeleting)) throw unknown;
  return { app, scan, membership };
}

const bySeverity = (count: (severity: Severity) => number) =>
  Object.fromEntries(SEVERITIES.map((s) => [s, count(s)])) as Record<Severity, number>;

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

/** The scan's findings by triage status and severity (all UNKNOWN while it runs: they are matched when it ends). */
export function triageStatsOf(stats: ScanStats, alerts: AlertRecord[] = []): TriageStats {
  if (stats.byStatus && stats.byPluginStatus) return { byStatus: stats.byStatus, byPluginStatus: stats.byPluginStatus };
  const running = untriagedStats(alerts);
  running.byStatus.UNKNOWN = { ...stats.urisBySeverity };
  return running;
}

/**
 * The statistics of several scans as one (an environment's tool streams' latest: docs/DATA-MODEL.md, Tool streams):
 * every figure summed, a running scan's findings counted untriaged.
 */
export function unionStats(all: ScanStats[]): ScanStats {
  const union: ScanStats & TriageStats = {
    ...statsOf([]),
    byStatus: untriagedStats([]).byStatus,
    byPluginStatus: {},
  };
  for (const stats of all) {
    const triage = triageStatsOf(stats);
    union.totalAlerts += stats.totalAlerts;
    union.uniqueAlerts += stats.uniqueAlerts;
    for (const severity of SEVERITIES) {
      union.urisBySeverity[severity] += stats.urisBySeverity[severity] ?? 0;
      union.alertsBySeverity[severity] += stats.alertsBySeverity[severity] ?? 0;
      for (const status of TRIAGE_STATUSES)
        union.byStatus[status][severity] += triage.byStatus[status]?.[severity] ?? 0;
    }
    for (const [pluginId, counts] of Object.entries(triage.byPluginStatus)) {
      const sum = (union.byPluginStatus[pluginId] ??= Object.fromEntries(
        TRIAGE_STATUSES.map((t) => [t, 0]),
      ) as StatusCounts);
      for (const status of TRIAGE_STATUSES) sum[status] += counts[status] ?? 0;
    }
  }
  return union;
}

/** Untriaged findings (UNKNOWN and ADD_COMMENT) of a scan by severity, and in all; Info findings never count. */
export function untriagedOf(stats: ScanStats | undefined) {
  const counts = { total: 0, High: 0, Medium: 0, Low: 0 };
  if (!stats) return counts;
  const statuses = stats.byStatus
    ? TRIAGE_STATUSES.filter(isUntriaged).map((status) => stats.byStatus![status])
    : [stats.urisBySeverity];
  for (const bySeverity of statuses) {
    for (const severity of RISK_SEVERITIES) {
      counts[severity] += bySeverity[severity] ?? 0;
      counts.total += bySeverity[severity] ?? 0;
    }
  }
  return counts;
}

/**
 * A severityStats map of the public views: "High", "Medium" and "Low" always, "Info" only when there are Info
 * findings (the public description names the first three; the map is open, so Info appears where it counts).
 */
export function severityMap(counts: Partial<Record<Severity, number>>): Record<string, number> {
  const map: Record<string, number> = { High: counts.High ?? 0, Medium: counts.Medium ?? 0, Low: counts.Low ?? 0 };
  if (counts.Info) map.Info = counts.Info;
  return map;
}

/** The environment's last-scan fields (docs/API.md, Environments) of this scan; untriaged: UNKNOWN and ADD_COMMENT. */
export function lastScanOf(scan: ScanRecord): LastScan {
  const untriaged = untriagedOf(scan.stats);
  return {
    lastScanId: scan.scanId,
    lastScanStatus: scan.status,
    lastScanTimestamp: scan.startedAt,
    lastScanCompletedTimestamp: scan.completedAt,
    lastScanDuration: scan.durationSeconds,
    lastScanTotalUntriaged: untriaged.total,
    lastScanHighUntriaged: untriaged.High,
    lastScanMediumUntriaged: untriaged.Medium,
    lastScanLowUntriaged: untriaged.Low,
    latestScanConfigHash: scan.configHash,
    lastScanHawkscanVersion: scan.hawkscanVersion,
    latestScanType: scan.scanType ?? 'DEFAULT',
  };
}

/** The scan as its tool stream's latest (docs/DATA-MODEL.md, Tool streams): its untriaged findings by severity. */
export function headOf(scan: ScanRecord): StreamHead {
  const untriaged = untriagedOf(scan.stats);
  return {
    scanId: scan.scanId,
    status: scan.status,
    startedAt: scan.startedAt,
    High: untriaged.High,
    Medium: untriaged.Medium,
    Low: untriaged.Low,
    ...(scan.status === 'COMPLETED' && scan.stats && { totalAlerts: scan.stats.totalAlerts }),
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

/** application.AlertStatusStats: one entry per triage status with findings, in the public enum's order. */
function alertStatusStats(
  byStatus: (status: (typeof TRIAGE_STATUSES)[number]) => { totalCount: number; severityStats: Record<string, number> },
) {
  return TRIAGE_STATUSES.map((alertStatus) => ({ alertStatus, ...byStatus(alertStatus) })).filter(
    (s) => s.totalCount > 0,
  );
}

/** application.ApplicationAlert, with its findings by triage status. */
export function toAlert(alert: AlertRecord, triage: TriageStats, scan?: ReturnType<typeof toScan>) {
  const counts = pluginCounts(triage, alert.pluginId);
  return {
    pluginId: alert.pluginId,
    name: alert.name,
    description: alert.description,
    severity: alert.severity,
    cweId: alert.cweId,
    references: alert.references,
    uriCount: alert.uriCount,
    alertStatusStats: alertStatusStats((status) => {
      const n = counts?.[status] ?? (status === 'UNKNOWN' ? alert.uriCount : 0);
      return { totalCount: n, severityStats: { [alert.severity]: n } };
    }),
    scan,
  };
}

/** application.ScanAlertStats: findings, alerts, and findings by triage status (each with its severities). */
export function scanAlertStats(stats: ScanStats, alerts: AlertRecord[] = []) {
  const triage = triageStatsOf(stats, alerts);
  return {
    totalAlerts: stats.totalAlerts,
    uniqueAlerts: stats.uniqueAlerts,
    alertStatusStats: alertStatusStats((status) => {
      const counts = triage.byStatus[status] ?? {};
      return { totalCount: Object.values(counts).reduce((n, c) => n + c, 0), severityStats: severityMap(counts) };
    }),
  };
}

/**
 * application.ApplicationScanResult: durations in seconds, timestamps in ms; each alert carries its scan; a running
 * scan has its scanProgress (the plugins that reported so far, RUNNING).
 */
export function toScanResult(scan: ScanRecord, app: ApplicationRecord, stats: ScanStats, alerts: AlertRecord[] = []) {
  const triage = triageStatsOf(stats, alerts);
  const scanView = toScan(scan, app);
  return {
    scan: scanView,
    scanDuration: scan.durationSeconds ?? 0,
    urlCount: scan.urlCount,
    alertStats: scanAlertStats(stats, alerts),
    severityStats: severityMap(stats.alertsBySeverity),
    configHash: scan.configHash,
    appHost: scan.host,
    applicationAlerts: alerts.map((alert) => toAlert(alert, triage, scanView)),
    timestamp: scan.startedAt,
    percentComplete: scan.status === 'STARTED' ? 0 : 100,
    scanProgress:
      scan.status === 'STARTED'
        ? {
            scanId: scan.scanId,
            plugins: alerts.map((a) => ({
              pluginId: a.pluginId,
              pluginName: a.name,
              alertCount: a.uriCount,
              status: 'RUNNING' as const,
            })),
          }
        : undefined,
    tags: scan.tags,
  };
}
