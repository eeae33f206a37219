import { wildcardMatcher } from '../input/wildcard.ts';
import { auditEntry } from '../audit/entries.ts';
import { transactWrite, type TransactItem } from '../db/transactions.ts';
import { failedCondition, retryOnConflict } from '../db/retry.ts';
import { notFound } from '../errors.ts';
import { canSeeTeamResource, type EnvironmentRecord } from '../applications/model.ts';
import { compareBy, nameOrderKey, pageOf, v1NextPageToken } from '../lists.ts';
import { getApplications } from '../applications/application-repository.ts';
import { environmentScanWrites, getEnvironment } from '../applications/environment-repository.ts';
import { currentStreams } from '../results/streams.ts';
import {
  countedAlertUris,
  alertsOfScan,
  deleteScanData,
  getAlert,
  getAlertMessage,
  getScan,
  scansOfEnvironmentNewestFirst,
  scansOfOrg,
} from '../results/scan-repository.ts';
import { type ScanRecord, isCommitted, streamHeadedBy, streamOf, type TriageRule } from '../results/model.ts';
import {
  accessibleScan,
  currentStats,
  headOf,
  lastScanOf,
  statsOf,
  toAlert,
  toScan,
  toScanResult,
  triageStatsOf,
} from './scans.ts';
import { issuesOfFindings, rulesOf } from '../results/finding-repository.ts';
import { slaClocks } from '../governance/due-dates.ts';
import type { SlaClock } from '../governance/model.ts';
import { ticketsOf } from '../trackers/repository.ts';
import { ticketView } from '../trackers/model.ts';
import { scanDeleteStart } from './scan-write.ts';
import { validationCommand } from './reproduce.ts';
import { toRuleHistories } from '../findings/model.ts';
import type { AlertMessageQuery, ListAlertFindingsQuery, ListScanAlertsQuery, ListScansQuery } from './inputs.ts';
import type { Caller } from '../context/caller.ts';

// The public API's scan-result operations (tag Scan Results): list scans, a scan's alerts, an alert's findings, a
// finding's messages, delete a scan (docs/DATA-MODEL.md, Scans).

/** `tag` filters: each is `name:value|value...` with `*` wildcards; a scan must match every one. */
function tagMatcher(filters: string[]): (scan: ScanRecord) => boolean {
  const tests = filters.map((filter) => {
    const split = filter.indexOf(':');
    const name = filter.slice(0, split);
    const patterns = filter
      .slice(split + 1)
      .split('|')
      .map((value) => wildcardMatcher(value, { anchored: true, ignoreCase: false }));
    return (scan: ScanRecord) =>
      scan.tags.some((tag) => tag.name === name && patterns.some((matches) => matches(tag.value)));
  });
  return (scan) => tests.every((test) => test(scan));
}

/**
 * GET /api/v1/scan/{orgId}: reads the organization's scans in the time range from its scan-date index (newest
 * first), joins their applications (team visibility, type, names), filters and pages in memory.
 */
export async function listScans(caller: Caller, orgId: string, q: ListScansQuery) {
  const membership = await caller.authorize(orgId);
  const scans: ScanRecord[] = [];
  for await (const scan of scansOfOrg(orgId, q.start, q.end || Number.MAX_SAFE_INTEGER)) scans.push(scan);
  const apps = new Map(
    (await getApplications(scans.map((s) => s.applicationId))).map((app) => [app.applicationId, app]),
  );
  const envNames = q.envs.map((n) => n.toLowerCase());
  const tagsMatch = tagMatcher(q.tag);
  const kept = scans.filter((scan) => {
    const app = apps.get(scan.applicationId);
    return (
      !!app &&
      app.organizationId === orgId &&
      canSeeTeamResource(membership, app.teamId) &&
      q.applicationTypes.includes(app.applicationType) &&
      (q.appIds.length === 0 || q.appIds.includes(scan.applicationId)) &&
      (q.teamIds.length === 0 || (!!app.teamId && q.teamIds.includes(app.teamId))) &&
      (envNames.length === 0 || envNames.includes(scan.envName.toLowerCase())) &&
      tagsMatch(scan)
    );
  });
  if (q.sortField) {
    const value =
      q.sortField === 'id'
        ? (s: ScanRecord) => s.scanId
        : (s: ScanRecord) =>
            `${nameOrderKey(apps.get(s.applicationId)!.name, s.applicationId)}#${nameOrderKey(s.envName, s.environmentId)}`;
    kept.sort(compareBy(value, (s) => s.scanId, q.sortDir === 'desc' ? 'DESC' : 'ASC'));
  } else if (q.sortDir === 'asc') kept.reverse(); // the index order is newest first
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(kept, request);
  return {
    applicationScanResults: await Promise.all(
      page.items.map(async (scan) => toScanResult(scan, apps.get(scan.applicationId)!, await currentStats(scan))),
    ),
    nextPageToken: v1NextPageToken(request, page.totalCount),
    totalCount: page.totalCount,
  };
}

/**
 * GET /api/v1/scan/{scanId}/alerts: the scan (one applicationScanResults entry) with a page of its alerts. Its
 * clients page it until `nextPageToken` is empty (agent-skills' hawk_api_all_pages, collecting
 * `applicationScanResults`), so the last page answers the empty end marker, and a page past the end answers no
 * entry rather than the scan again (README "Paging"); no counter-paging client reads this list.
 */
export async function listScanAlerts(caller: Caller, scanId: string, q: ListScanAlertsQuery) {
  const { scan, app } = await accessibleScan(caller, scanId);
  const alerts = (await alertsOfScan(scan)).filter((alert) => alert.uriCount > 0);
  const value =
    q.sortField === 'name'
      ? (a: (typeof alerts)[number]) => a.name.toLowerCase()
      : (a: (typeof alerts)[number]) => a.pluginId;
  alerts.sort(compareBy(value, (a) => a.pluginId, q.sortDir === 'desc' ? 'DESC' : 'ASC'));
  const request = { page: q.pageToken, size: q.pageSize };
  const page = pageOf(alerts, request);
  const pastTheEnd = request.page > 0 && page.items.length === 0;
  return {
    applicationScanResults: pastTheEnd ? [] : [toScanResult(scan, app, await currentStats(scan, alerts), page.items)],
    nextPageToken: page.hasNext ? String(request.page + 1) : '',
    totalCount: page.totalCount,
  };
}

const notReported = (scanId: string, pluginId: string) => notFound(`scan ${scanId} has no alert ${pluginId}`);

/** GET /api/v1/scan/{scanId}/alert/{pluginId}: the alert and a page of its URIs (one sort-key range). */
export async function listScanAlertFindings(
  caller: Caller,
  scanId: string,
  pluginId: string,
  q: ListAlertFindingsQuery,
) {
  const { scan, app } = await accessibleScan(caller, scanId);
  const alert = await getAlert(scan, pluginId);
  if (!alert || alert.uriCount === 0) throw notReported(scanId, pluginId);
  const from = q.pageToken * q.pageSize;
  const uris = await countedAlertUris(scan, alert, from, q.pageSize);
  const scanView = toScan(scan, app);
  const [rules, tickets] = await Promise.all([
    rulesOf(
      scan,
      uris.map((u) => u.findingHash),
    ),
    issuesOfFindings(
      scan,
      uris.map((u) => u.findingHash),
    ).then((findings) => ticketsOf(scan, findings)),
  ]);
  const clocks = await currentSlaClocks(app.organizationId, scan, alert.severity, uris, rules);
  return {
    alert: toAlert(alert, triageStatsOf(scan.stats ?? statsOf([alert]), [alert]), scanView),
    applicationScanAlertUris: uris.map((u) => {
      const rule = rules.get(u.findingHash);
      return {
        alertUriId: u.alertUriId,
        uri: u.uri,
        requestMethod: u.requestMethod,
        msgId: u.msgId,
        pluginId: u.pluginId,
        status: rule?.status ?? 'UNKNOWN',
        matchedRuleNote: rule?.note ?? '',
        matchedRuleUserId: rule?.userId ?? '',
        matchedRuleLastUpdated: rule?.updatedAt ?? 0,
        ruleHistories: toRuleHistories(rule),
        findingHash: u.findingHash,
        scan: scanView,
        ...dueDateFields(clocks?.get(u.findingHash)),
        // The ticket of the finding's issue (docs/TRACKERS.md): where it is, its key and its state.
        ...ticketView(tickets.get(u.findingHash)),
        // Ours: the parameter of the finding's identity (docs/DATA-MODEL.md, Findings), which names what of the URI
        // it is about (a missing header, a cookie).
        param: u.param,
      };
    }),
    appHost: scan.host,
    nextPageToken: v1NextPageToken({ page: q.pageToken, size: q.pageSize }, alert.uriCount),
    totalCount: alert.uriCount,
  };
}

/**
 * Due dates of a page of an alert's findings (docs/GOVERNANCE.md, Due dates), when the scan is the latest of its
 * tool stream (docs/DATA-MODEL.md, Tool streams): a finding of an older scan may have been fixed since, and has no
 * due date then.
 */
async function currentSlaClocks(
  orgId: string,
  scan: ScanRecord,
  severity: string,
  uris: { findingHash: string }[],
  rules: Map<string, TriageRule>,
) {
  const env = await getEnvironment(scan.applicationId, scan.environmentId);
  if (!env || streamHeadedBy(await currentStreams(env), scan.scanId) === undefined) return undefined;
  const findings = uris.map((u) => ({ findingHash: u.findingHash, severity }));
  return slaClocks(orgId, scan, findings, rules, Date.now());
}

/** application.ApplicationAlertUri's fields of ours: the due date, days left and whether it is overdue. */
const dueDateFields = (clock: SlaClock | undefined) =>
  clock?.dueAt === undefined
    ? { dueDate: '', daysLeft: 0, overdue: false }
    : { dueDate: new Date(clock.dueAt).toISOString(), daysLeft: clock.daysLeft, overdue: clock.overdue };

/** The Cookie header's value of a raw request header block. */
const cookiesOf = (requestHeader: string) =>
  requestHeader
    .split(/\r?\n/)
    .filter((line) => /^cookie:/i.test(line))
    .map((line) => line.slice(line.indexOf(':') + 1).trim())
    .join('; ');

/** GET /api/v1/scan/{scanId}/uri/{alertUriId}/messages/{messageId} */
export async function getAlertMessages(
  caller: Caller,
  scanId: string,
  alertUriId: string,
  messageId: string,
  q: AlertMessageQuery,
) {
  const { scan } = await accessibleScan(caller, scanId);
  const message = await getAlertMessage(scan, messageId);
  const alert = message && (await getAlert(scan, message.pluginId));
  // A message counts once its URI does (within the alert's committed ranges); others may linger uncounted.
  const counted = !!alert && (message?.n === undefined ? alert.uriCount > 0 : isCommitted(alert, message.n));
  if (!message || message.alertUriId !== alertUriId || !counted) {
    throw notFound(`scan ${scanId} has no message ${messageId} for alert URI ${alertUriId}`);
  }
  return {
    scanMessage: {
      id: message.msgId,
      requestHeader: message.requestHeader,
      requestBody: message.requestBody,
      responseHeader: message.responseHeader,
      responseBody: message.responseBody,
      cookieParams: cookiesOf(message.requestHeader),
    },
    uri: message.uri,
    evidence: message.evidence,
    otherInfo: message.otherInfo,
    description: alert.description,
    param: message.param,
    findingHash: message.findingHash,
    validationCommand: q.includeValidationCommand ? validationCommand(message, scan.host) : '',
  };
}

/** The environment's most recent scan other than `scanId` (of `stream` only, when named), still there. */
async function previousScan(envId: string, scanId: string, stream?: string): Promise<ScanRecord | undefined> {
  for await (const candidate of scansOfEnvironmentNewestFirst(envId)) {
    if (candidate.scanId === scanId || (stream !== undefined && streamOf(candidate) !== stream)) continue;
    const current = await getScan(candidate); // the index lags: confirm it still exists
    if (current && !current.deleting) return current;
  }
  return undefined;
}

/**
 * DELETE /api/v1/scan/{scanId}: one transaction hides the scan (with SCAN_REMOVED) and, when it was its stream's
 * latest, moves the stream to its previous scan (or removes it; docs/DATA-MODEL.md, Tool streams), and when it was
 * its environment's last scan, the environment's last-scan fields to the previous scan (or clears them); its
 * findings then go. A retried DELETE of an interrupted delete resumes it.
 */
export async function deleteScan(caller: Caller, scanId: string): Promise<object> {
  let { scan, app } = await accessibleScan(caller, scanId, { includeDeleting: true });
  await retryOnConflict({ conflict: failedCondition() }, async (attempt) => {
    // Another DELETE won (this one then finishes the removal with it), or the environment's last scan changed.
    if (attempt > 1) ({ scan, app } = await accessibleScan(caller, scanId, { includeDeleting: true }));
    if (scan.deleting) return;
    const env = await getEnvironment(scan.applicationId, scan.environmentId);
    const payload = {
      scanId,
      applicationId: app.applicationId,
      appName: app.name,
      envId: scan.environmentId,
      envName: env?.name ?? scan.envName,
    };
    const items = [
      ...scanDeleteStart(scan, app),
      ...(env ? await streamsWithout(env, scan) : []),
      auditEntry(caller, app.organizationId, 'SCAN_REMOVED', payload),
    ];
    await transactWrite(items);
  });
  await deleteScanData(scan);
  return {};
}

/** The environment's write without the deleted `scan`, when it was its stream's latest or its last scan. */
async function streamsWithout(env: EnvironmentRecord, scan: ScanRecord): Promise<TransactItem[]> {
  const streams = { ...(await currentStreams(env)) };
  const stream = streamHeadedBy(streams, scan.scanId);
  const replacing = env.lastScanId === scan.scanId;
  if (stream === undefined && !replacing) return [];
  if (stream !== undefined) {
    const previous = await previousScan(scan.environmentId, scan.scanId, stream);
    if (previous) streams[stream] = headOf(previous);
    else delete streams[stream];
  }
  const previous = replacing ? await previousScan(scan.environmentId, scan.scanId) : undefined;
  return environmentScanWrites(env, {
    streams,
    lastScan: replacing ? (previous ? lastScanOf(previous) : null) : undefined,
  });
}
