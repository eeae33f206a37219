import { randomUUID } from 'node:crypto';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { conditionFailed } from '../db/items.ts';
import { badRequest, conflict, notFound, payloadTooLarge } from '../errors.ts';
import { FINDINGS_REPORT_LIMITS, PENDING_SWEEP_MS, PENDING_WRITE_EXPIRY_MS } from '../limits.ts';
import { logger } from '../context/logger.ts';
import { environmentScanWrites, getEnvironment } from '../applications/environment-repository.ts';
import { type ApplicationRecord, type EnvironmentRecord, openIssuesChanged } from '../applications/model.ts';
import { currentStreams } from '../results/streams.ts';
import { putScanDigest } from './scan-digest.ts';
import {
  alertsOfScan,
  findingsCount,
  getScan,
  putFindings,
  removeFindings,
  reserveAlertUris,
  scanFindingsRestoreStart,
} from '../results/scan-repository.ts';
import {
  type AlertUriRecord,
  type ScanRecord,
  findingHash,
  reportsFull,
  streamOf,
  type FindingsBefore,
} from '../results/model.ts';
import { accessibleScan, headOf, lastScanOf, statsOf, toScanResult } from './scans.ts';
import { findingsOfScan } from '../findings/scan-findings.ts';
import { carryIssueRules } from '../findings/rule-write.ts';
import {
  findingsBefore,
  pendingFindingsEnd,
  pendingFindingsRemove,
  pendingFindingsStart,
  recordFindings,
  restoreFindings,
  sweepPendingFindings,
  triageVersionCheck,
} from '../results/finding-repository.ts';
import type { ReportedAlert, ReportedUri, ScanAlertsBody, ScanCompletedBody } from './inputs.ts';
import { scanEnd } from './scan-write.ts';
import { publicationTrend } from '../trends/writes.ts';
import type { Caller } from '../context/caller.ts';

// The scanner's reports after the start: batches of findings, then the end of the scan (docs/DATA-MODEL.md, Scans).

/** Alerts of one request stored in parallel (each alert's URIs are themselves written several batches at a time). */
const ALERT_CONCURRENCY = 4;

/** URIs written between two checks of the request's storing deadline. */
const STORE_CHUNK = 250;
const tooSlow = () =>
  payloadTooLarge(
    `storing this report took longer than ${FINDINGS_REPORT_LIMITS.storeBudgetMs / 1000} s (the service is busy): nothing was counted; send it again in smaller requests`,
  );

const ended = (scan: Pick<ScanRecord, 'scanId' | 'status'>) =>
  badRequest(`scan ${scan.scanId} has already ended (${scan.status}): it takes no more reports`);

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
 * The URI and message items of an alert's URIs numbered from `first`, each with its finding's hash (the same for a
 * scanner's report and an import).
 */
export function findingItems(
  scan: Pick<ScanRecord, 'applicationId' | 'environmentId'>,
  pluginId: string,
  uris: ReportedUri[],
  first: number,
) {
  return uris.map((u, i) => {
    const uri: AlertUriRecord = {
      n: first + i,
      alertUriId: randomUUID(),
      msgId: randomUUID(),
      pluginId,
      uri: u.uri,
      requestMethod: u.requestMethod,
      param: u.param,
      findingHash: findingHash({
        applicationId: scan.applicationId,
        environmentId: scan.environmentId,
        pluginId,
        method: u.requestMethod,
        uri: u.uri,
        param: u.param,
      }),
    };
    const { uri: _uri, requestMethod: _method, ...message } = u;
    return { uri, message: { ...uri, ...message } };
  });
}

/**
 * Stores one alert's URIs of a request: numbers are reserved on the alert (creating it), then the URI and message
 * items written. They stay invisible until findingsCount counts them (reportScanAlerts).
 */
async function storeAlert(scan: ScanRecord, reported: ReportedAlert, deadline: number) {
  const { uris, ...metadata } = reported;
  const { first } = await reserveAlertUris(scan, metadata, uris.length);
  const findings = findingItems(scan, reported.pluginId, uris, first);
  for (let from = 0; from < findings.length; from += STORE_CHUNK) {
    if (Date.now() > deadline) throw tooSlow();
    await putFindings(scan, findings.slice(from, from + STORE_CHUNK));
  }
  return { pluginId: reported.pluginId, first, count: uris.length, findings };
}

/**
 * POST /api/v1/scan/{scanId}/alerts: every alert's URIs are stored (4 alerts at a time), then one transaction
 * counts the whole request (shared/limits.ts FINDINGS_REPORT_LIMITS keeps it within one transaction and the
 * Lambda timeout). A request that fails before counting leaves only invisible items; one that loses the race
 * with completion removes them. A report with a `reportId` the scan has counted is not counted again. Not audited:
 * docs/API.md, Activity log names no type for it, and SCAN_STARTED/SCAN_COMPLETED bracket it.
 */
export async function reportScanAlerts(caller: Caller, scanId: string, readBody: () => Promise<ScanAlertsBody>) {
  const { scan } = await accessibleScan(caller, scanId); // before the (up to 4 MiB) body is parsed
  const body = await readBody();
  if (scan.status !== 'STARTED') throw ended(scan);
  const alerts = mergeByPlugin(body.alerts);
  const reported = {
    scanId,
    alertsReported: alerts.length,
    urisReported: alerts.reduce((n, a) => n + a.uris.length, 0),
  };
  if (body.reportId && scan.reportIds?.has(body.reportId)) return { ...reported, alreadyCounted: true };
  const queue = [...alerts];
  const stored: Awaited<ReturnType<typeof storeAlert>>[] = [];
  const deadline = Date.now() + FINDINGS_REPORT_LIMITS.storeBudgetMs;
  const worker = async () => {
    for (let alert = queue.shift(); alert; alert = queue.shift()) stored.push(await storeAlert(scan, alert, deadline));
  };
  await Promise.all(Array.from({ length: Math.min(ALERT_CONCURRENCY, alerts.length) }, worker));
  if (Date.now() > deadline) throw tooSlow(); // what was stored stays invisible (never counted)
  try {
    await transactWrite(findingsCount(scan, stored, FINDINGS_REPORT_LIMITS.maxReportsPerAlert, body.reportId));
  } catch (error) {
    const scanEnded = conditionFailed(error, 'scanEnded');
    const full = stored.find((alert) => conditionFailed(error, reportsFull(alert.pluginId)));
    if (!scanEnded && !full) throw error;
    await removeFindings(
      scan,
      stored.flatMap((alert) => alert.findings.map((f) => f.uri)),
    );
    if (scanEnded) {
      const now = (await getScan(scan)) ?? scan;
      // The same report counted meanwhile (a resent report whose first sending was still being stored).
      if (now.status === 'STARTED' && body.reportId && now.reportIds?.has(body.reportId))
        return { ...reported, alreadyCounted: true };
      throw ended(now);
    }
    throw payloadTooLarge(
      `alert ${full!.pluginId} has received ${FINDINGS_REPORT_LIMITS.maxReportsPerAlert} reports in this scan, the most one alert may: send its URIs in fewer, bigger requests`,
    );
  }
  return { ...reported, alreadyCounted: false };
}

/** The environment's streams, the scan's stream, and whether the scan is its latest (docs/DATA-MODEL.md, Tool streams). */
async function streamOfScan(env: EnvironmentRecord, scan: ScanRecord) {
  const streams = await currentStreams(env);
  const stream = streamOf(scan);
  return { streams, stream, head: Object.hasOwn(streams, stream) && streams[stream].scanId === scan.scanId };
}

/**
 * The environment's part of a completion: when the scan is its stream's latest, the stream's head, its last scan (if
 * it still is) and its open issues; otherwise only its open issues, if the findings the scan reports changed them.
 */
async function environmentCompletionWrites(
  env: EnvironmentRecord,
  done: ScanRecord,
  { streams, stream, head }: Awaited<ReturnType<typeof streamOfScan>>,
  openIssues: Parameters<typeof openIssuesChanged>[1],
) {
  if (head)
    return environmentScanWrites(env, {
      streams: { ...streams, [stream]: headOf(done) },
      lastScan: env.lastScanId === done.scanId ? lastScanOf(done) : undefined,
      openIssues,
    });
  return openIssuesChanged(env, openIssues) ? environmentScanWrites(env, { streams, openIssues }) : [];
}

/** SCAN_COMPLETED or SCAN_ERRORED, with the names a reader of the audit log looks for. */
function completionAudit(caller: Caller, app: ApplicationRecord, env: EnvironmentRecord, done: ScanRecord) {
  return auditEntry(caller, app.organizationId, done.status === 'COMPLETED' ? 'SCAN_COMPLETED' : 'SCAN_ERRORED', {
    scanId: done.scanId,
    applicationId: app.applicationId,
    appName: app.name,
    envId: env.environmentId,
    envName: env.name,
    status: done.status,
  });
}

/**
 * POST /api/v1/scan/{scanId}/complete: freezes the scan's statistics (read from its alerts, and written only if no
 * findings were counted meanwhile), its status and duration, and, while it is still its environment's last scan,
 * the environment's last-scan fields, with SCAN_COMPLETED or SCAN_ERRORED, in one transaction. The environment's
 * finding records are written before it (too many for one transaction): when it does not commit, they are put
 * back as they were (unless another request completed the scan meanwhile: then they are its findings). `along`
 * adds a caller's items to that transaction (endScanRun: the hosted run's end), read again at each attempt.
 */
export async function reportScanCompleted(
  caller: Caller,
  scanId: string,
  body: ScanCompletedBody,
  { audit = true, along }: { audit?: boolean; along?: (attempt: number) => Promise<TransactItem[]> } = {},
) {
  let { scan, app } = await accessibleScan(caller, scanId);
  // What earlier imports or completions in the application left when they were stopped (a crash, a timeout), for a
  // bounded time: the rest is left to the next request.
  await sweepPendingFindings(scan.applicationId, Date.now(), AbortSignal.timeout(PENDING_SWEEP_MS));
  let before: FindingsBefore | undefined;
  // This request's finding records stay hidden from readers until its transaction commits (see importScanReport).
  const writer = randomUUID();
  let pending = false;
  try {
    // Read again when findings were being counted between the two reads (stillCounting), or when the write lost a
    // race: the scan ended, findings were counted, a newer scan of the environment started or a finding was triaged.
    const retry = {
      conflict: (error: unknown) =>
        (error as { stillCounting?: boolean } | undefined)?.stillCounting
          ? 'findings still being counted'
          : failedCondition()(error),
    };
    return await retryOnConflict(retry, async (attempt) => {
      if (attempt > 1) ({ scan, app } = await accessibleScan(caller, scanId));
      if (scan.status !== 'STARTED') throw ended(scan);
      const alerts = await alertsOfScan(scan);
      const stats = statsOf(alerts);
      const env = await getEnvironment(scan.applicationId, scan.environmentId);
      if (!env) throw notFound(`scan ${scanId} not found`); // its environment is being deleted
      if (stats.totalAlerts === scan.reportedUris) {
        // Its findings (first/last seen, URIs per finding) and its figures by triage status, from the rules now.
        const found = await findingsOfScan(scan, alerts);
        // Read by diffs of the scan, once published (scans/scan-digest.ts; kept only while its count holds).
        await putScanDigest(scan, found.findings, alerts, found.templates);
        if (!pending) {
          await pendingFindingsStart(scan.applicationId, {
            attempt: writer,
            environmentId: scan.environmentId,
            scanId,
            kind: 'completion',
            expiresAt: Date.now() + PENDING_WRITE_EXPIRY_MS,
          });
          pending = true;
        }
        const completedAt = Date.now();
        // The trends: what the scan reports, and, when it completed as its stream's latest, what of its stream it no
        // longer does (fixed: their records are written with the others; docs/DATA-MODEL.md, Tool streams).
        const { streams, stream, head } = await streamOfScan(env, scan);
        const trend = await publicationTrend(
          scan,
          found,
          body.status === 'COMPLETED' && head ? stream : undefined,
          completedAt,
        );
        before = await findingsBefore(
          scan,
          trend.records.map((f) => f.findingHash),
          before,
          writer,
        );
        await recordFindings(scan, trend.records, before);
        await carryIssueRules(scan, found.carried);
        const done: ScanRecord = {
          ...scan,
          status: body.status,
          completedAt,
          durationSeconds: Math.round((completedAt - scan.startedAt) / 1000),
          urlCount: body.urlCount,
          stats: { ...stats, ...found.stats },
        };
        const items = [
          pendingFindingsEnd(scan.applicationId, writer),
          ...scanEnd(scan, done, app),
          ...(await environmentCompletionWrites(env, done, { streams, stream, head }, trend.openIssues)),
          triageVersionCheck(scan, found.triageVersion),
          ...trend.items,
          ...((await along?.(attempt)) ?? []),
          // A hosted run's stop is audited by stopScan itself, in the transaction that stops it.
          ...(audit ? [completionAudit(caller, app, env, done)] : []),
        ];
        await transactWrite(items);
        return toScanResult(done, app, done.stats!);
      }
      throw Object.assign(conflict(`scan ${scanId}: findings are still being reported; complete it once they are`), {
        stillCounting: true,
      });
    });
  } catch (error) {
    // The answer is this failure, never the clean-up's: a clean-up that fails leaves the pending write, whose
    // records stay hidden until a sweep puts them back.
    try {
      if (before && (await scanFindingsRestoreStart(scan))) await restoreFindings(scan, before);
      if (pending) await pendingFindingsRemove(scan.applicationId, writer);
    } catch (cleanup) {
      logger.warn('completion clean-up left to the sweep', { scanId, cleanup });
    }
    throw error;
  }
}
