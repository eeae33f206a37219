import { createHash, randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/entries.ts';
import { transactWriteRetryingConflicts } from '../db/query.ts';
import { cancellationReasons } from '../db/items.ts';
import { badRequest, conflict, notFound } from '../errors.ts';
import { environmentLastScanUpdate, getEnvironment } from '../applications/environment-repository.ts';
import {
  alertsOfScan,
  findingsCount,
  getScan,
  putFindings,
  removeFindings,
  reserveAlertUris,
  scanCompletion,
  type AlertUriRecord,
  type ScanRecord,
} from './repository.ts';
import { accessibleScan, lastScanOf, statsOf, toScanResult } from './scans.ts';
import type { ReportedAlert, ScanAlertsBody, ScanCompletedBody } from './inputs.ts';
import type { Caller } from '../http/caller.ts';

// The scanner's reports after the start: batches of findings, then the end of the scan (docs/DATA-MODEL.md, Scans).

const MAX_ATTEMPTS = 8;
/** Alerts of one request stored in parallel (each alert's URIs are themselves written several batches at a time). */
const ALERT_CONCURRENCY = 4;

const ended = (scan: Pick<ScanRecord, 'scanId' | 'status'>) => badRequest(`scan ${scan.scanId} has already ended (${scan.status}): it takes no more reports`);

/** The same finding in later scans gets the same hash (application, environment, plugin, method, URI, parameter). */
const findingHash = (scan: ScanRecord, pluginId: string, method: string, uri: string, param: string) =>
  createHash('sha256').update([scan.applicationId, scan.environmentId, pluginId, method, uri, param].join('\n')).digest('hex');

/** Alerts of the same plugin within one request merge, as they do across requests. */
function mergeByPlugin(alerts: ReportedAlert[]): ReportedAlert[] {
  const merged = new Map<string, ReportedAlert>();
  for (const alert of alerts) {
    const seen = merged.get(alert.pluginId);
    if (seen) seen.uris.push(...alert.uris);
    else merged.set(alert.pluginId, { ...alert, uris: [...alert.uris] });
  }
  return [...merged.values()];
}

/**
 * Stores one alert's URIs of a request: numbers are reserved on the alert, the URI and message items written, then
 * counted on the alert and the scan in one transaction that requires the scan still STARTED. A request that loses
 * that race with completion removes what it wrote.
 */
async function reportAlert(scan: ScanRecord, reported: ReportedAlert): Promise<void> {
  const { uris, ...metadata } = reported;
  const { first } = await reserveAlertUris(scan, metadata, uris.length);
  const findings = uris.map((u, i) => {
    const uri: AlertUriRecord = {
      n: first + i,
      alertUriId: randomUUID(),
      msgId: randomUUID(),
      pluginId: reported.pluginId,
      uri: u.uri,
      requestMethod: u.requestMethod,
      findingHash: findingHash(scan, reported.pluginId, u.requestMethod, u.uri, u.param),
    };
    const { n: _n, ...shared } = uri;
    const { uri: _uri, requestMethod: _method, ...message } = u;
    return { uri, message: { ...shared, ...message } };
  });
  await putFindings(scan, findings);
  try {
    await transactWriteRetryingConflicts(findingsCount(scan, reported.pluginId, uris.length));
  } catch (error) {
    if (cancellationReasons(error)?.[0] !== 'ConditionalCheckFailed') throw error;
    await removeFindings(scan, findings.map((f) => f.uri));
    throw ended((await getScan(scan)) ?? scan);
  }
}

/** POST /api/v1/scan/{scanId}/alerts. Not audited: SPEC lists no type for it, and SCAN_STARTED/SCAN_COMPLETED bracket it. */
export async function reportScanAlerts(caller: Caller, scanId: string, body: ScanAlertsBody) {
  const { scan } = await accessibleScan(caller, scanId);
  if (scan.status !== 'STARTED') throw ended(scan);
  const alerts = mergeByPlugin(body.alerts);
  const queue = [...alerts];
  const worker = async () => {
    for (let alert = queue.shift(); alert; alert = queue.shift()) await reportAlert(scan, alert);
  };
  await Promise.all(Array.from({ length: Math.min(ALERT_CONCURRENCY, alerts.length) }, worker));
  return { scanId, alertsReported: alerts.length, urisReported: alerts.reduce((n, a) => n + a.uris.length, 0) };
}

/**
 * POST /api/v1/scan/{scanId}/complete: freezes the scan's statistics (read from its alerts, and written only if no
 * findings were counted meanwhile), its status and duration, and, while it is still its environment's last scan,
 * the environment's last-scan fields, with SCAN_COMPLETED or SCAN_ERRORED, in one transaction.
 */
export async function reportScanCompleted(caller: Caller, scanId: string, body: ScanCompletedBody) {
  let { scan, app } = await accessibleScan(caller, scanId);
  for (let attempt = 1; ; attempt++) {
    if (scan.status !== 'STARTED') throw ended(scan);
    const stats = statsOf(await alertsOfScan(scan));
    const env = await getEnvironment(scan.applicationId, scan.environmentId);
    if (!env) throw notFound(`scan ${scanId} not found`); // its environment is being deleted
    const completedAt = Date.now();
    const done: ScanRecord = {
      ...scan,
      status: body.status,
      completedAt,
      durationSeconds: Math.round((completedAt - scan.startedAt) / 1000),
      urlCount: body.urlCount,
      stats,
    };
    const payload = { scanId, applicationId: app.applicationId, appName: app.name, envId: env.environmentId, envName: env.name, status: body.status };
    const items = [
      scanCompletion(scan, done),
      ...(env.lastScanId === scanId ? [environmentLastScanUpdate(env, lastScanOf(done), scanId)] : []),
      await auditEntry(caller, app.organizationId, body.status === 'COMPLETED' ? 'SCAN_COMPLETED' : 'SCAN_ERRORED', payload),
    ];
    if (stats.totalAlerts === scan.reportedUris) {
      try {
        await transactWriteRetryingConflicts(items);
        return toScanResult(done, app, stats);
      } catch (error) {
        // The scan ended, findings were counted, or a newer scan of the environment started: read again.
        if (!cancellationReasons(error)?.includes('ConditionalCheckFailed') || attempt >= MAX_ATTEMPTS) throw error;
      }
    } else if (attempt >= MAX_ATTEMPTS) {
      throw conflict(`scan ${scanId}: findings are still being reported; complete it once they are`);
    }
    // Findings were being counted between the two reads (or the write lost a race): read both again.
    ({ scan, app } = await accessibleScan(caller, scanId));
  }
}
